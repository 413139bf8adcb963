// SPDX-License-Identifier: MIT
/* costs_loop.c: bench program for the cost of record --costs
 * (bench/costs_cost) - as many counted events a call as a program makes.
 *   costs_loop STEPS MODE [wait]: calls step() STEPS times (default
 *   200000); each call spends, by MODE:
 *     none     nothing: a call alone, what every traced call pays anyway;
 *     alloc    malloc of 16-79 bytes and its free: two allocator probes,
 *              two cost records (glibc's thread cache serves both);
 *     malloc   the malloc alone: main() frees the blocks after the timed
 *              steps, so a step's time is one allocator's probe (glibc's
 *              malloc and free start with instructions the kernel runs
 *              differently at a probe);
 *     syscall  getppid(): one system call, one cost record;
 *     fault    a write to the next page of a 64 MiB anonymous mapping
 *              (huge pages off): one page fault, one cost record.  After
 *              the last page, main() drops the pages (one madvise) and the
 *              next step faults the first one in again.
 *   Prints the steps, the process's CPU time (user and system: the
 *   probes' traps and the BPF programs run in the thread that fires them,
 *   a tracer's collector is not in it), its minor faults, the median
 *   time of one step over batches of 1000 (a median leaves out the
 *   batches other processes' work delayed: on a shared machine a whole
 *   run's time swings by tens of percent) and, last, the seconds the
 *   steps took on the monotonic clock: the run's own time, without the
 *   tracer's start and end.  With `wait`, it prints "ready" before the
 *   steps and waits for a line on stdin, and after its figures waits for
 *   end of file: the bench reads the kernel's counters of its BPF
 *   programs around the steps alone.
 *   costs_loop idle: calls step() once, prints "ready" and waits for end of
 *   file on stdin: a traced process that does nothing while the bench
 *   measures what a recording costs the rest of the machine. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BATCH 1000
#define REGION (64UL << 20)
#define PAGE 4096UL

enum mode { NONE, ALLOC, MALLOC, SYSCALL, FAULT };

/* The measuring itself is left without sleds: only step() and main() are
 * traced calls. */
#define UNTRACED __attribute__((xray_never_instrument))

static enum mode mode;
static char *region;
static volatile unsigned long sink;
static char *volatile escaped;
static char **kept;

UNTRACED static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

__attribute__((noinline)) void step(unsigned long i)
{
	switch (mode) {
	case ALLOC: {
		char *p = malloc(16 + (i & 63));

		/* seen outside: the compiler may not elide the pair */
		escaped = p;
		free(p);
		break;
	}
	case MALLOC:
		kept[i] = malloc(16 + (i & 63));
		break;
	case SYSCALL:
		sink += (unsigned long)getppid();
		break;
	case FAULT:
		region[(i % (REGION / PAGE)) * PAGE] = 1;
		break;
	case NONE:
		sink += i;
		break;
	}
}

UNTRACED static int by_value(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

UNTRACED static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

/* Reads stdin up to a newline (line) or its end. */
UNTRACED static void wait_input(int line)
{
	char c;

	while (read(0, &c, 1) > 0)
		if (line && c == '\n')
			return;
}

static int idle(void)
{
	step(0);
	ready();
	wait_input(0);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "none", "alloc", "malloc", "syscall", "fault" };
	unsigned long steps, nbatch, pages = REGION / PAGE;
	unsigned long long t0, t1, *batch;
	struct rusage ru;

	if (argc > 1 && !strcmp(argv[1], "idle"))
		return idle();
	steps = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	for (mode = NONE; argc > 2 && strcmp(argv[2], names[mode]); mode++)
		if (mode == FAULT) {
			fprintf(stderr,
				"costs_loop: MODE is none, alloc, malloc, syscall or fault\n");
			return 2;
		}
	nbatch = steps / BATCH;
	if (!nbatch || !(batch = calloc(nbatch, sizeof(*batch))) ||
	    (mode == MALLOC && !(kept = calloc(steps, sizeof(*kept)))))
		return 2;
	if (mode == FAULT) {
		region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			      0);
		/* one fault a page, not one a 2 MiB huge page */
		if (region == MAP_FAILED || madvise(region, REGION, MADV_NOHUGEPAGE))
			return 2;
	}
	if (argc > 3 && !strcmp(argv[3], "wait")) {
		ready();
		wait_input(1);
	}
	t0 = now_ns();
	for (unsigned long b = 0; b < nbatch; b++) {
		unsigned long long s = now_ns();

		for (unsigned long i = b * BATCH; i < (b + 1) * BATCH; i++) {
			if (mode == FAULT && i && i % pages == 0 &&
			    madvise(region, REGION, MADV_DONTNEED))
				return 1;
			step(i);
		}
		batch[b] = now_ns() - s;
	}
	t1 = now_ns();
	for (unsigned long i = 0; kept && i < nbatch * BATCH; i++)
		free(kept[i]);
	getrusage(RUSAGE_SELF, &ru);
	qsort(batch, nbatch, sizeof(*batch), by_value);
	printf("steps %lu mode %s cpu %.6f minflt %ld step_ns %.1f\n", nbatch * BATCH, names[mode],
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	       ru.ru_minflt, (double)batch[nbatch / 2] / BATCH);
	printf("%.6f\n", (double)(t1 - t0) / 1e9);
	if (argc > 3 && !strcmp(argv[3], "wait")) {
		fflush(stdout);
		wait_input(0);
	}
	return 0;
}
