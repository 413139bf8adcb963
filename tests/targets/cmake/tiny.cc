// SPDX-License-Identifier: MIT
// tiny.cc: a C++ target for docs/targets.md, built by CMake.  Every
// function but the counter printer gets sleds; the printer opts out with
// [[clang::xray_never_instrument]].  It prints `COUNT <tid> <name> <n>`
// per function, as the test fixtures do (tests/check_counts.py).
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace {
unsigned long n_main, n_area, n_total;
}

struct Square {
	explicit Square(int s) : side(s) {}
	__attribute__((noinline)) long area() const
	{
		n_area++;
		return (long)side * side;
	}
	int side;
};

__attribute__((noinline)) long total(int n)
{
	long sum = 0;

	n_total++;
	for (int i = 0; i < n; i++)
		sum += Square(i).area();
	return sum;
}

[[clang::xray_never_instrument]] static void print_counts()
{
	int tid = (int)gettid();

	std::printf("COUNT %d main %lu\n", tid, n_main);
	std::printf("COUNT %d Square::area() const %lu\n", tid, n_area);
	std::printf("COUNT %d total(int) %lu\n", tid, n_total);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 10;
	long sum = 0;

	n_main++;
	for (int r = 0; r < rounds; r++)
		sum += total(100);
	std::printf("sum %ld\n", sum);
	print_counts();
	return 0;
}
