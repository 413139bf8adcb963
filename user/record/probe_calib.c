// SPDX-License-Identifier: MIT
/* probe_calib.c: see probe_calib.h. */
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "arch/arch.h"
#include "record/probe_calib.h"
#include "sledtrace.skel.h"

#define BATCH 16  /* calls timed together: the clock read is ~10x a call */
#define ROUNDS 3  /* batches per group, probed and plain interleaved */
#define GROUPS 5  /* the median of the groups' minima */
#define WARMUP 16 /* calls before timing: the kernel optimizes a probe on its first hit */

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

static struct bpf_link *attach(const struct sledtrace_bpf *skel, long (*fn)(long))
{
	char path[4096];
	size_t off = 0;

	if (file_of((const void *)fn, path, sizeof(path), &off))
		return NULL;
	return bpf_program__attach_uprobe_opts(skel->progs.on_calib, getpid(), path, off, NULL);
}

/* The descriptors open now, as a bitmap of the first FD_SCAN. */
#define FD_SCAN 4096
static void open_fds(uint8_t *set)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	memset(set, 0, FD_SCAN / 8);
	while (d && (e = readdir(d))) {
		long fd = strtol(e->d_name, NULL, 10);

		if (e->d_name[0] != '.' && fd >= 0 && fd < FD_SCAN)
			set[fd / 8] |= (uint8_t)(1u << (fd % 8));
	}
	if (d)
		closedir(d);
}

/* Closing a uprobe link waits for the kernel's grace periods, and one of
 * them (uretprobes' SRCU) lasts while any process on the machine has a
 * return hijacked.  A thread of ours left to close them blocked there for
 * a whole run and kept the process, and the recording's links with it,
 * alive after sledtrace was killed: the target paid every probe to its
 * end (record-killed-mixed, 2.5 min instead of 2 s); closing them here
 * blocked the start as long as another traced process ran.  So the last
 * references go to a process of their own (fork twice: init or a
 * subreaper reaps it), which holds nothing else and may wait as long as
 * it must; ours are dropped at once.  before: the descriptors open before
 * the attach; those opened since (the link and its perf event) are the
 * ones handed over. */
static void release(struct bpf_link *link, const uint8_t *before)
{
	uint8_t after[FD_SCAN / 8];
	pid_t pid;

	open_fds(after);
	pid = fork();
	if (pid == 0) {
		if (fork() == 0) {
			for (int fd = 0; fd < FD_SCAN; fd++)
				if (!((after[fd / 8] & ~before[fd / 8]) >> (fd % 8) & 1))
					close(fd);
			close_range(FD_SCAN, ~0u, 0);
		}
		_exit(0); /* its descriptors, the link's last, close on the way out */
	}
	if (pid < 0) { /* no helper: close it here, however long it takes */
		bpf_link__destroy(link);
		return;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	bpf_link__disconnect(link);
	bpf_link__destroy(link);
	for (int fd = 0; fd < FD_SCAN; fd++)
		if ((after[fd / 8] & ~before[fd / 8]) >> (fd % 8) & 1)
			close(fd);
}

/* ns per hit of a probe on the architecture's rewritten-sled site. */
static uint64_t measure_site(const struct sledtrace_bpf *skel)
{
	struct arch_site_fns fns = arch_probe_site();
	uint8_t before[FD_SCAN / 8];
	struct bpf_link *probe;
	uint64_t ns;

	open_fds(before);
	if (!(probe = attach(skel, fns.probed)))
		return 0;
	ns = hit_ns(fns.probed, fns.plain);
	release(probe, before);
	return ns;
}

void probe_calib__measure(const struct sledtrace_bpf *skel, const struct exit_policy *exits,
			  struct probe_calib *out)
{
	uint64_t t0 = now_ns();
	libbpf_print_fn_t old;

	*out = (struct probe_calib){ 0 };
	if (!skel || !skel->progs.on_calib)
		return;
	/* Only a rewritten copy's sleds, for now: with the originals' probes
	 * (the entry sled as compiled, and a uretprobe in sledtrace's own process)
	 * a sledtrace killed mid-run was left blocked in its exit, closing a
	 * perf-event uprobe, with the recording's links still open, and the
	 * target paid every probe to its end (record-killed-mixed: 2.5 min,
	 * 1.8 s without).  Those recordings fall back to the shortest leaf. */
	if (exits->copy != EXIT_COPY_REWRITTEN)
		return;
	old = libbpf_set_print(NULL); /* a failure is only a 0 */
	/* every sled of a copy starts with the same instruction: entries and
	 * exits alike */
	out->entry_ns = out->exit_ns = measure_site(skel);
	libbpf_set_print(old);
	out->took_ns = now_ns() - t0;
}
