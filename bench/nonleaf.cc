// SPDX-License-Identifier: MIT
/* nonleaf.cc: benchmark program - C++ whose hot functions are not leaves:
 * a recursive evaluation of a binary expression tree whose nodes call
 * helpers that may throw, so every traced frame can be unwound through.
 * Prints the result and the number of instrumented calls it made. */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

static unsigned long calls;

struct Node {
	int op;
	long value;
	Node *l, *r;
};

__attribute__((noinline)) static long check(long v)
{
	calls++;
	if (v == -1234567)
		throw std::runtime_error("bad value");
	return v;
}

__attribute__((noinline)) static long combine(int op, long a, long b)
{
	calls++;
	return check(op ? a + b : a ^ b);
}

__attribute__((noinline)) static long eval(const Node *n)
{
	calls++;
	if (!n->l)
		return check(n->value);
	return combine(n->op, eval(n->l), eval(n->r));
}

__attribute__((noinline)) static Node *build(int depth, long seed)
{
	calls++;
	Node *n = new Node{ int(seed & 1), seed, nullptr, nullptr };
	if (depth > 0) {
		n->l = build(depth - 1, seed * 3 + 1);
		n->r = build(depth - 1, seed * 5 + 2);
	}
	return n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 60;
	Node *root = build(12, 1);
	long sum = 0;

	for (int i = 0; i < rounds; i++) {
		try {
			sum += eval(root);
		} catch (const std::exception &e) {
			sum--;
		}
	}
	printf("result %ld calls %lu\n", sum, calls);
	return 0;
}
