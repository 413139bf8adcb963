// SPDX-License-Identifier: MIT
/* record_run.c: the running part of a recording (record.h): the event
 * loop, stopping and detaching; record_finish.c ends the trace. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/bpf_counters.h"
#include "record/record_int.h"
#include "sledtrace.h"
#include "sledtrace.skel.h"

#define POLL_MS 50 /* drain at least this often: wakeups are batched */

/* A termination signal sent to sledtrace is passed on to the command; the
 * trace is finished when the command exits, as on any other exit.  With -p
 * the processes are not ours: a signal ends the recording, not them. */
static volatile sig_atomic_t pending_signal;

static void on_signal(int sig)
{
	pending_signal = sig;
}

void record__catch_signals(bool attached)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (attached) {
		sigaction(SIGINT, &sa, NULL);
		return;
	}
	/* The terminal's ^C and ^\ reach the command too: let it decide. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
}

static int drain(struct record *r)
{
	int n = ring_buffer__consume(r->rb);

	if (n < 0 && r->cb_err)
		return record__fail(r->cb_err, "writing the trace failed: %s",
				    strerror(-r->cb_err));
	if (n < 0 && n != -EINTR)
		return record__fail(n, "reading the ring buffer failed: %s", strerror(-n));
	return 0;
}

uint64_t record__self_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

/* Peak RSS of this image (VmHWM): getrusage's ru_maxrss would include
 * whatever the process that forked sledtrace had resident before exec. */
static long peak_rss_kib(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

/* sledtrace's own CPU (not the command's).  What the collector costs per
 * event is the CPU from the command's release to the committed trace. */
static void print_cpu(const struct record *r, bool background)
{
	uint64_t run_ns = r->cpu_ns_finished - r->cpu_ns_started;
	double events = (double)r->events;

	fprintf(stderr,
		"sledtrace: timing: cpu %.1f ms; collector %.1f ms for %.0f events, %.0f "
		"ns/event; peak rss %ld KiB%s\n",
		(double)record__self_cpu_ns() / 1e6, r->cpu_ns_finished ? (double)run_ns / 1e6 : 0,
		events, events && r->cpu_ns_finished ? (double)run_ns / events : 0, peak_rss_kib(),
		background ? "; probe teardown left to a helper" : "");
}

/* Detaching perf-event uprobes waits for an RCU grace period per probe, so
 * it can take long: -v (and the benchmarks) show the time, with
 * sledtrace's own CPU and peak RSS.  Once the launched command is gone,
 * uprobe_multi links are handed to a helper process (attach.h), so that
 * sledtrace does not wait for the kernel's teardown. */
void record__detach(struct record *r)
{
	size_t n = r->att ? attacher__probe_count(r->att) : 0;
	uint64_t t0 = record__now_ns();
	bool background = r->child_done && !getenv("SLEDTRACE_DETACH_WAIT");

	/* No new holds from here on; pending ones are only resumed.  The mmap
	 * tracepoint's teardown waits for grace periods: it is only switched
	 * off here and closed with the uprobe links, in the background. */
	if (r->skel && r->skel->bss)
		r->skel->bss->holds_off = true;
	record__unhook_processes(r);
	r->watch.att = NULL;
	if (r->opts->verbose)
		fprintf(stderr, "sledtrace: timing: hooks removed in %.1f ms\n",
			(double)(record__now_ns() - t0) / 1e6);
	if (!background || !r->att || attacher__free_in_background(r->att, r->hooks.mmap_fds, 2)) {
		background = false;
		attacher__free(r->att);
		for (int i = 0; i < 2; i++)
			if (r->hooks.mmap_fds[i] >= 0)
				close(r->hooks.mmap_fds[i]);
	}
	r->hooks.mmap_fds[0] = r->hooks.mmap_fds[1] = -1;
	r->att = NULL;
	if (n && r->opts->verbose) {
		fprintf(stderr, "sledtrace: timing: attach %.3f ms, detach %.1f ms, %zu probes\n",
			(double)r->attach_ns / 1e6, (double)(record__now_ns() - t0) / 1e6, n);
		print_cpu(r, background);
	}
}

static int watch(struct record *r)
{
	struct epoll_event ev = { .events = EPOLLIN };

	r->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epfd < 0)
		return -errno;
	ev.data.u32 = 0;
	if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(r->rb), &ev))
		return -errno;
	ev.data.u32 = 1;
	if (r->child.pid > 0 && r->child.pidfd >= 0 &&
	    epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->child.pidfd, &ev))
		return -errno;
	for (size_t i = 0; i < r->targets.n; i++)
		if (epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->targets.pidfds[i], &ev))
			return -errno;
	return 0;
}

/* -p ends on a signal to sledtrace, after --duration, or once every
 * target has exited. */
static bool attached_done(struct record *r)
{
	if (pending_signal)
		return true;
	if (r->opts->duration_ns && record__now_ns() - r->start_ns >= r->opts->duration_ns)
		return true;
	return targets__alive(&r->targets) == 0;
}

/* One turn of an event loop: consume what the ring holds, then refresh the
 * status line when it is due. */
static int drain_and_tick(struct record *r)
{
	int err = drain(r);

	if (!err && progress__due(&r->prog))
		progress__tick(
			&r->prog, collector__stats(r->col)->events,
			bpf_counters__get(bpf_map__fd(r->skel->maps.counters), SLED_CTR_DROPS));
	return err;
}

/* One thread's entries the kernel's --min-duration still holds back. */
static int held_back_thread(struct record *r, uint32_t tid, const struct sled_kf_thread *t)
{
	struct sled_call e[SLED_KF_FRAMES];
	uint32_t n = 0;

	for (uint32_t i = t->emitted; i < t->n && i < SLED_KF_FRAMES; i++)
		e[n++] = (struct sled_call){
			.h = { .ts = t->f[i].ts, .tgid = t->tgid, .tid = tid, .tag = t->f[i].tag },
			.slot = t->f[i].slot
		};
	return n ? collector__held_back(r->col, e, n, t->last_ts) : 0;
}

/* After detaching from processes that run on: the calls still open in
 * them whose entries the kernel held back go to the collector, which
 * ends them as unfinished at their thread's latest call, as it would
 * have without the kernel's filter (docs/DESIGN.md, "Call filters"). */
static int held_back(struct record *r)
{
	int fd = bpf_map__fd(r->skel->maps.kf_threads), err = 0;
	struct sled_kf_thread *t = malloc(sizeof(*t));
	uint32_t key, next, *prev = NULL;

	if (!t)
		return -ENOMEM;
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, t))
			err = held_back_thread(r, key, t);
	}
	free(t);
	return err;
}

static int run_attached(struct record *r)
{
	struct epoll_event evs[8];
	int err = 0;

	while (!attached_done(r)) {
		epoll_wait(r->epfd, evs, 8, POLL_MS);
		err = drain_and_tick(r);
		if (err)
			return err;
	}
	/* No probe fires once detached, so the last drain sees everything;
	 * the processes run on, their code back as the file has it. */
	record__detach(r);
	record__unwatch_exits(r);
	err = drain(r);
	if (!err && r->skel->rodata->kf_min_ns && (err = held_back(r)))
		return record__fail(err, "writing the trace failed: %s", strerror(-err));
	return err;
}

int record__run(struct record *r)
{
	struct epoll_event evs[2];
	int err = watch(r);

	if (err)
		return record__fail(err, "cannot watch the child: %s", strerror(-err));
	progress__init(&r->prog, r->opts->quiet);
	if (r->targets.n)
		return run_attached(r);
	while (!r->child_done) {
		int n = epoll_wait(r->epfd, evs, 2, POLL_MS);

		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 == 1)
				r->child_done = true;
		if (pending_signal) {
			kill(r->child.pid, pending_signal);
			pending_signal = 0;
		}
		err = drain_and_tick(r);
		if (err)
			return err;
	}
	r->status = launch__wait(&r->child);
	r->child.pid = -1;
	/* Everything the child did is queued by now. */
	return drain(r);
}
