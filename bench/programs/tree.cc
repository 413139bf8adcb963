// SPDX-License-Identifier: MIT
/* tree.cc: bench program - a C++ workload whose hot functions are not
 * leaves: a random expression tree evaluated recursively, through helpers
 * that can throw (so the object can unwind, as any C++ program).  argv[1]
 * rounds (default 200); prints the traced calls it made ("calls N"). */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace
{
struct Node {
	int op;
	long val;
	Node *l, *r;
};
unsigned long calls;
unsigned long seed = 88172645463325252ul;

unsigned long rnd()
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}
} // namespace

__attribute__((noinline)) long checked_div(long a, long b)
{
	calls++;
	if (b == 0)
		throw std::domain_error("division by zero");
	return a / b;
}

__attribute__((noinline)) long apply(int op, long a, long b)
{
	calls++;
	switch (op) {
	case 0:
		return a + b;
	case 1:
		return a - b;
	case 2:
		return a * b % 1000003;
	default:
		return checked_div(a, b | 1);
	}
}

__attribute__((noinline)) long leaf_value(const Node *n)
{
	calls++;
	return n->val;
}

__attribute__((noinline)) long eval(const Node *n)
{
	calls++;
	if (!n->l)
		return leaf_value(n);
	return apply(n->op, eval(n->l), eval(n->r));
}

__attribute__((noinline)) Node *build(int depth)
{
	Node *n = new Node{ static_cast<int>(rnd() % 4), static_cast<long>(rnd() % 1000), nullptr,
			    nullptr };

	if (depth > 0) {
		n->l = build(depth - 1 - static_cast<int>(rnd() % 2));
		n->r = build(depth - 1);
	}
	return n;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 200;
	Node *root = build(10);
	long sum = 0;

	try {
		for (unsigned long i = 0; i < rounds; i++)
			sum += eval(root);
	} catch (const std::exception &e) {
		std::printf("error: %s\n", e.what());
		return 1;
	}
	std::printf("sum %ld\ncalls %lu\n", sum, calls + 1);
	return 0;
}
