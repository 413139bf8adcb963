// SPDX-License-Identifier: MIT
/* loop2.c: bench program - N threads (argv[2], default 2) each call one
 * tiny function argv[1] times (default 1000000) as fast as they can: the
 * highest event rate a traced program can offer, for drop checks.  Prints
 * the calls it made, so the event count can be checked. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long per_thread;
static volatile unsigned long sink;

__attribute__((noinline)) void tick(unsigned long i)
{
	__atomic_add_fetch(&sink, i & 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; i < per_thread; i++)
		tick(i);
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long nthreads = argc > 2 ? strtoul(argv[2], NULL, 10) : 2;
	pthread_t tids[64];

	per_thread = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (unsigned long t = 0; t < nthreads; t++)
		if (pthread_create(&tids[t], NULL, worker, NULL))
			return 1;
	for (unsigned long t = 0; t < nthreads; t++)
		pthread_join(tids[t], NULL);
	printf("calls %lu\n", per_thread * nthreads);
	return 0;
}
