// SPDX-License-Identifier: MIT
/* tiny.c: a C target for docs/targets.md, built by meson with an
 * always-instrument list (xray-always.txt: fun:hot_*) and no instruction
 * threshold, so only the hot_ functions get sleds.  It prints
 * `COUNT <tid> <name> <n>` for those, as the test fixtures do. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long n_parse, n_step, n_cold;

__attribute__((noinline)) int hot_parse(int x)
{
	n_parse++;
	return x * 7 + 3;
}

__attribute__((noinline)) int hot_step(int x)
{
	n_step++;
	return hot_parse(x) ^ x;
}

__attribute__((noinline)) int cold_check(int x)
{
	n_cold++;
	return x & 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 1000;
	int acc = 0;

	for (int i = 0; i < rounds; i++)
		acc += cold_check(i) ? hot_step(i) : hot_parse(i);
	printf("acc %d cold %lu\n", acc, n_cold);
	printf("COUNT %d hot_parse %lu\n", (int)gettid(), n_parse);
	printf("COUNT %d hot_step %lu\n", (int)gettid(), n_step);
	return 0;
}
