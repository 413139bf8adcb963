// SPDX-License-Identifier: MIT
/* probe_calib.c: see probe_calib.h. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch/arch.h"
#include "record/probe_calib.h"
#include "sledtrace.skel.h"

#define BATCH 16  /* calls timed together: the clock read is ~10x a call */
#define ROUNDS 3  /* batches per group, probed and plain interleaved */
#define GROUPS 5  /* the median of the groups' minima */
#define WARMUP 16 /* calls before timing: the kernel rewrites a nop5 on its first hit */

static long (*volatile call_fn)(long);

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t batch_ns(long (*fn)(long))
{
	uint64_t t0;
	long sum = 0;

	call_fn = fn;
	t0 = now_ns();
	for (long i = 0; i < BATCH; i++)
		sum += call_fn(i);
	__asm__ volatile("" : : "r"(sum));
	return now_ns() - t0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ns per call that probed costs over plain: per group the fastest batch
 * of each (a preempted batch is only slower), then the median group. */
static uint64_t hit_ns(long (*probed)(long), long (*plain)(long))
{
	uint64_t d[GROUPS];

	for (int i = 0; i < WARMUP; i++)
		call_fn = probed, call_fn(i), call_fn = plain, call_fn(i);
	for (int g = 0; g < GROUPS; g++) {
		uint64_t p = UINT64_MAX, q = UINT64_MAX, t;

		for (int r = 0; r < ROUNDS; r++) {
			t = batch_ns(probed);
			p = t < p ? t : p;
			t = batch_ns(plain);
			q = t < q ? t : q;
		}
		d[g] = p > q ? (p - q) / BATCH : 0;
	}
	qsort(d, GROUPS, sizeof(d[0]), cmp_u64);
	return d[GROUPS / 2];
}

/* Where fn is in the file mapped at it: path and file offset, from
 * /proc/self/maps.  0 or -ENOENT. */
static int file_of(const void *fn, char *path, size_t len, size_t *offset)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4352], file[4096];
	unsigned long lo, hi, off;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (ret && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &lo, &hi, &off, file) < 3 ||
		    file[0] != '/' || (uintptr_t)fn < lo || (uintptr_t)fn >= hi)
			continue;
		snprintf(path, len, "%s", file);
		*offset = (uintptr_t)fn - lo + off;
		ret = 0;
	}
	fclose(f);
	return ret;
}

static struct bpf_link *attach(const struct sledtrace_bpf *skel, long (*fn)(long), bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret);
	char path[4096];
	size_t off = 0;

	if (file_of((const void *)fn, path, sizeof(path), &off))
		return NULL;
	return bpf_program__attach_uprobe_opts(skel->progs.on_calib, getpid(), path, off, &o);
}

/* Closing a uprobe link waits for an RCU grace period (65-77 ms measured
 * here, far more than the measure): the links are closed by a detached
 * thread while the recording goes on; nothing hits them meanwhile. */
static void *close_links(void *arg)
{
	struct bpf_link **links = arg;

	for (size_t i = 0; i < 2; i++)
		bpf_link__destroy(links[i]);
	free(links);
	return NULL;
}

static void release(struct bpf_link *a, struct bpf_link *b)
{
	struct bpf_link **links = malloc(2 * sizeof(*links));
	pthread_attr_t at;
	pthread_t t;
	bool started = false;

	if (links && !pthread_attr_init(&at)) {
		links[0] = a;
		links[1] = b;
		started = !pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED) &&
			  !pthread_create(&t, &at, close_links, links);
		pthread_attr_destroy(&at);
	}
	if (started)
		return;
	free(links);
	bpf_link__destroy(a);
	bpf_link__destroy(b);
}

/* ns per hit of a probe on site (*entry) and, with ret, of a return probe
 * alone (*exit: a probe and a return probe, less the probe). */
static void measure_site(const struct sledtrace_bpf *skel, enum arch_site site, bool ret,
			 uint64_t *entry, uint64_t *exit)
{
	struct arch_site_fns fns = arch_probe_site(site);
	struct bpf_link *probe = attach(skel, fns.probed, false), *retprobe = NULL;
	uint64_t both = 0;

	if (!probe)
		return;
	*entry = hit_ns(fns.probed, fns.plain);
	if (ret && (retprobe = attach(skel, fns.probed, true)))
		both = hit_ns(fns.probed, fns.plain);
	release(probe, retprobe);
	if (ret)
		*exit = both > *entry ? both - *entry : 0;
}

void probe_calib__measure(const struct sledtrace_bpf *skel, const struct exit_policy *exits,
			  struct probe_calib *out)
{
	uint64_t t0 = now_ns();
	libbpf_print_fn_t old;

	*out = (struct probe_calib){ 0 };
	if (!skel || !skel->progs.on_calib)
		return;
	old = libbpf_set_print(NULL); /* a failure is only a 0 */
	if (exits->copy == EXIT_COPY_REWRITTEN) {
		/* every sled of a copy starts with the nop5: entries and exits alike */
		measure_site(skel, ARCH_SITE_REWRITTEN, false, &out->entry_ns, &out->exit_ns);
		out->exit_ns = out->entry_ns;
	} else {
		measure_site(skel, ARCH_SITE_SLED,
			     exits->returns == RETURNS_URETPROBE || exits->returns == RETURNS_MIXED,
			     &out->entry_ns, &out->exit_ns);
	}
	libbpf_set_print(old);
	if (!out->entry_ns)
		out->exit_ns = 0;
	out->took_ns = now_ns() - t0;
}

static void keep_less(uint64_t *have, uint64_t got)
{
	if (got && (!*have || got < *have))
		*have = got;
}

void probe_calib__again(const struct sledtrace_bpf *skel, const struct exit_policy *exits,
			struct probe_calib *calib)
{
	struct probe_calib now;

	probe_calib__measure(skel, exits, &now);
	if (!now.entry_ns)
		return;
	if (!calib->entry_ns || now.entry_ns < calib->entry_ns) {
		calib->entry_ns = now.entry_ns;
		calib->exit_ns = now.exit_ns;
	} else {
		keep_less(&calib->exit_ns, now.exit_ns);
	}
	calib->took_ns += now.took_ns;
}
