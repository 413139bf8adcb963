// SPDX-License-Identifier: MIT
/* pingpong.c: bench program for the cost of causes (bench/causes_cost) -
 * as many wakeups as two threads can make.  Two threads hand a turn back
 * and forth over a condition variable ROUNDS times (argv[1], default
 * 100000); whoever has the turn calls serve(), which spins SPIN iterations
 * (argv[2], default 0: the handoff is all there is), then passes the turn
 * and sleeps until it comes back, so nearly every handoff wakes the other
 * thread.  With argv[3], both threads run on that CPU only: every handoff
 * is then a wakeup and a switch on one CPU, no other CPU woken from idle,
 * so its time is what the kernel (and a tracer's programs) spend on it.  Prints the handoffs, the sleeps both threads made (their
 * voluntary context switches: each one ends with a wakeup, which tells the
 * wakeup rate of an untraced run too), the process's CPU time (user and
 * system: a probe's or a BPF program's time is the thread's that fires it,
 * a tracer's collector is not in it), the median and 90th percentile of
 * one handoff's time (from one serve() to the next, the other thread's:
 * a median leaves out the handoffs another process's work on the CPUs
 * delayed, which on a shared machine swing a whole run's time by tens of
 * percent) and, last, the seconds all the handoffs took on the monotonic
 * clock: the run's own time, without the tracer's start and end.
 *   pingpong idle: calls serve() once, prints "ready" and waits for end of
 *   file on stdin: a traced process that makes no wakeups of its own, for
 *   measuring what a recording costs the rest of the machine. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turned = PTHREAD_COND_INITIALIZER;
static int turn;
static unsigned long rounds, spin;
static long sleeps[2];
static unsigned long long *stamp; /* ns at the start of serve(i), per round */
static volatile unsigned long sink;

/* The measuring itself is left without sleds: only the handoffs are traced. */
#define UNTRACED __attribute__((xray_never_instrument))

UNTRACED static unsigned long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (unsigned long long)t.tv_sec * 1000000000ULL + (unsigned long long)t.tv_nsec;
}

__attribute__((noinline)) void serve(unsigned long i)
{
	if (stamp)
		stamp[i] = now_ns();
	for (unsigned long k = 0; k < spin; k++)
		sink += k ^ i;
}

/* Thread me (0 or 1) serves rounds me, me + 2, ...: it waits for the
 * turn, serves, hands the turn over and signals the other thread. */
__attribute__((noinline)) void *player(void *arg)
{
	int me = (int)(long)arg;
	struct rusage ru;

	for (unsigned long i = (unsigned long)me; i < rounds; i += 2) {
		pthread_mutex_lock(&mu);
		while (turn != me)
			pthread_cond_wait(&turned, &mu);
		pthread_mutex_unlock(&mu);
		serve(i);
		pthread_mutex_lock(&mu);
		turn = !me;
		pthread_mutex_unlock(&mu);
		/* Signalled without the lock: a woken thread that ran at once
		 * (pinned, on this CPU) would otherwise sleep again on the
		 * mutex, a second wakeup some handoffs make and others not. */
		pthread_cond_signal(&turned);
	}
	getrusage(RUSAGE_THREAD, &ru);
	sleeps[me] = ru.ru_nvcsw;
	return NULL;
}

UNTRACED static int by_value(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

/* The handoffs' times, sorted, in place of the stamps. */
UNTRACED static void handoff_times(void)
{
	for (unsigned long i = 0; i + 1 < rounds; i++)
		stamp[i] = stamp[i + 1] - stamp[i];
	qsort(stamp, rounds - 1, sizeof(*stamp), by_value);
}

static int idle(void)
{
	char buf[64];

	serve(0);
	printf("ready\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	pthread_t other;

	if (argc > 1 && !strcmp(argv[1], "idle"))
		return idle();
	rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	spin = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	if (rounds < 2 || !(stamp = calloc(rounds, sizeof(*stamp))))
		return 2;
	if (argc > 3) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(atoi(argv[3]), &one);
		/* the other thread inherits it from this one */
		if (sched_setaffinity(0, sizeof(one), &one))
			return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&other, NULL, player, (void *)1L))
		return 1;
	player(NULL);
	pthread_join(other, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	getrusage(RUSAGE_SELF, &ru);
	handoff_times();
	printf("handoffs %lu sleeps %ld cpu %.6f handoff_ns %llu p90 %llu\n", rounds,
	       sleeps[0] + sleeps[1],
	       (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
	       stamp[(rounds - 1) / 2], stamp[(rounds - 1) * 9 / 10]);
	printf("%.6f\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
