// SPDX-License-Identifier: MIT
/* probe_cost.c: the target of bench/probe_cost.  Each p_* function starts
 * with the instruction its name says and returns; `probe_cost NAME N`
 * calls it N times and prints the thread's CPU ns per call (user + system:
 * the kernel handles the trap in the thread's own time), measured inside
 * the process so that sledtrace's start-up and teardown are not counted
 * and a busy machine does not inflate the figure as wall time would.
 * bench/probe_cost probes each function's first instruction and compares. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One function per probed instruction.  Top-level asm keeps the compiler
 * from touching the bytes; .type/.size make them sized function symbols,
 * which is what `record --no-xray` probes. */
#define PROBE_FN(name, bytes)                                                         \
	__asm__(".text\n.globl " #name "\n.type " #name                               \
		", @function\n"                                                       \
		".p2align 4\n" #name ":\n" bytes "\n.size " #name ", .-" #name "\n"); \
	long name(long)

PROBE_FN(p_nop5, ".byte 0x0f,0x1f,0x44,0x00,0x00\nret");
PROBE_FN(p_nop1, "nop\nret");
PROBE_FN(p_jmp8, ".byte 0xeb,0x00\nret");
PROBE_FN(p_entry_sled, ".byte 0xeb,0x09,0x66,0x0f,0x1f,0x84,0x00,0x00,0x02,0x00,0x00\nret");
PROBE_FN(p_push, "push %rbp\npop %rbp\nret");
PROBE_FN(p_mov, "mov %rdi, %rax\nret");
PROBE_FN(p_nop9, ".byte 0x66,0x0f,0x1f,0x84,0x00,0x00,0x02,0x00,0x00\nret");
PROBE_FN(p_ret, "ret");
PROBE_FN(p_exit_sled, ".byte 0xc3,0x2e,0x66,0x0f,0x1f,0x84,0x00,0x00,0x02,0x00,0x00");

static const struct {
	const char *name;
	long (*fn)(long);
} fns[] = {
	{ "p_nop5", p_nop5 },		{ "p_nop1", p_nop1 },
	{ "p_jmp8", p_jmp8 },		{ "p_entry_sled", p_entry_sled },
	{ "p_push", p_push },		{ "p_mov", p_mov },
	{ "p_nop9", p_nop9 },		{ "p_ret", p_ret },
	{ "p_exit_sled", p_exit_sled },
};

static long (*volatile call)(long);

int main(int argc, char **argv)
{
	struct timespec a, b;
	long n, i;

	if (argc != 3) {
		fprintf(stderr, "usage: probe_cost NAME N\n");
		return 2;
	}
	n = atol(argv[2]);
	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++)
		if (!strcmp(fns[k].name, argv[1]))
			call = fns[k].fn;
	if (!call || n <= 0) {
		fprintf(stderr, "probe_cost: unknown function or bad count\n");
		return 2;
	}
	call(0); /* the kernel may optimise a probe after its first hit */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (i = 0; i < n; i++)
		call(i);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
