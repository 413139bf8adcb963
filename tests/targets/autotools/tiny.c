// SPDX-License-Identifier: MIT
/* tiny.c: a C target for docs/targets.md, built by autotools with every
 * function instrumented (-fxray-instruction-threshold=1) except those in
 * xray-never.txt, and with the XRay runtime linked in (sledtrace needs it
 * not, but must cope with it).  Two threads; each prints
 * `COUNT <tid> <name> <n>` for its own calls, as the test fixtures do. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Thread_local unsigned long n_main, n_worker, n_fib;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned long fib(unsigned n);
/* Called through a volatile pointer so that the compiler cannot turn one
 * of the two recursive calls into a loop: every counted call is a call. */
static unsigned long (*volatile fib_call)(unsigned) = fib;

__attribute__((noinline)) unsigned long fib(unsigned n)
{
	n_fib++;
	return n < 2 ? n : fib_call(n - 1) + fib_call(n - 2);
}

void print_counts(void)
{
	int tid = (int)gettid();

	pthread_mutex_lock(&out_lock);
	if (n_main)
		printf("COUNT %d main %lu\n", tid, n_main);
	if (n_worker)
		printf("COUNT %d worker %lu\n", tid, n_worker);
	printf("COUNT %d fib %lu\n", tid, n_fib);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
}

__attribute__((noinline)) void *worker(void *arg)
{
	n_worker++;
	printf("fib %lu\n", fib((unsigned)(long)arg));
	print_counts();
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 15;
	pthread_t t;

	n_main++;
	if (pthread_create(&t, NULL, worker, (void *)(n + 2)))
		return 1;
	pthread_join(t, NULL);
	printf("fib %lu\n", fib((unsigned)n));
	print_counts();
	return 0;
}
