// SPDX-License-Identifier: MIT
/* capture_cost.c: the target of bench/capture_cost.  `capture_cost N` calls
 * work() N times (three arguments: an int, a long, a short string) and
 * prints the thread's CPU ns per call (user + system: the kernel runs the
 * probes in the thread's own time), measured inside the process so that
 * sledtrace's start-up and teardown are not counted.  Built with XRay;
 * bench/capture_cost records it with and without --capture on work. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int work(int a, long b, const char *s)
{
	return a + (int)b + s[0];
}

static double cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	const char *text = "a short string";
	volatile int sink = 0;
	double t0 = cpu_ns();

	for (long i = 0; i < n; i++)
		sink += work((int)i, i * 3, text);
	printf("%.1f\n", (cpu_ns() - t0) / (double)n);
	return sink == 42;
}
