// SPDX-License-Identifier: MIT
/* record_run.c: the running part of a recording (record.h): the event
 * loop, stopping, detaching and finishing the trace. */
#include <errno.h>
#include <inttypes.h>
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

#include "record/probe_note.h"
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

/* The per-CPU values of key in the per-CPU array fd, folded by fold (the
 * sum of a counter, the least nonzero value...); 0 when they cannot be
 * read. */
static uint64_t percpu_fold(int fd, uint32_t key, uint64_t (*fold)(uint64_t, uint64_t))
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t acc = 0, *vals;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && !bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpu; i++)
			acc = fold(acc, vals[i]);
	free(vals);
	return acc;
}

static uint64_t add(uint64_t acc, uint64_t v)
{
	return acc + v;
}

/* The least nonzero value; 0 when all are. */
static uint64_t least_set(uint64_t acc, uint64_t v)
{
	return v && (!acc || v < acc) ? v : acc;
}

static uint64_t counter(struct record *r, uint32_t idx)
{
	return percpu_fold(bpf_map__fd(r->skel->maps.counters), idx, add);
}

/* The shortest leaf call the kernel's filter left out, 0: none. */
static uint64_t kernel_leaf_min(struct record *r)
{
	return percpu_fold(bpf_map__fd(r->skel->maps.kf_leaf_min), 0, least_set);
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
	bpf_link__destroy(r->links.exec);
	bpf_link__destroy(r->links.syscall_exit);
	bpf_link__destroy(r->links.fork);
	bpf_link__destroy(r->links.rename);
	bpf_link__destroy(r->links.sigcont);
	memset(&r->links, 0, sizeof(r->links));
	r->watch.att = NULL;
	if (r->opts->verbose)
		fprintf(stderr, "sledtrace: timing: hooks removed in %.1f ms\n",
			(double)(record__now_ns() - t0) / 1e6);
	if (!background || !r->att || attacher__free_in_background(r->att, r->mmap_hook_fds, 2)) {
		background = false;
		attacher__free(r->att);
		for (int i = 0; i < 2; i++)
			if (r->mmap_hook_fds[i] >= 0)
				close(r->mmap_hook_fds[i]);
	}
	r->mmap_hook_fds[0] = r->mmap_hook_fds[1] = -1;
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
		progress__tick(&r->prog, collector__stats(r->col)->events,
			       counter(r, SLED_CTR_DROPS));
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
	bpf_link__destroy(r->exit_link);
	bpf_link__destroy(r->sched_link);
	r->exit_link = r->sched_link = NULL;
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

/* "N <noun>[plural] <what>": one warning for a kernel-side loss counter. */
static void warn_lost(uint64_t n, const char *noun, const char *plural, const char *what)
{
	if (n)
		fprintf(stderr, "sledtrace: warning: %" PRIu64 " %s%s %s\n", n, noun,
			n == 1 ? "" : plural, what);
}

/* Mappings the BPF side could not report ran without a hold: whatever
 * sleds they brought may be missing from the trace; say so. */
static void report_holds(struct record *r)
{
	const struct mapping_watch *w = &r->watch;
	uint64_t unheld = counter(r, SLED_CTR_UNHELD), lost = counter(r, SLED_CTR_LOST_CONTROL);
	uint64_t idents = counter(r, SLED_CTR_LOST_IDENT), untraced = counter(r, SLED_CTR_UNTRACED);
	const struct collector_names *names = collector__names(r->col);

	warn_lost(unheld, "new executable mapping", "s",
		  "could not be reported (ring buffer full); objects with sleds they brought "
		  "may be missing");
	warn_lost(lost, "fork or exec notice", "s",
		  "lost (ring buffer full): children may lack their parent's frames, execs "
		  "their end");
	warn_lost(counter(r, SLED_CTR_GAPS_LOST), "coverage gap", "s",
		  "could not be noted (gap map full): the trace may miss more than it says");
	warn_lost(counter(r, SLED_CTR_UNREPAIRED), "forked child", "ren",
		  "could not be stopped for repair (map full): they may crash at a probed "
		  "function their parent had called");
	warn_lost(counter(r, SLED_CTR_GATES_LOST), "--under gate", "s",
		  "could not open (gate map full): the calls inside them are missing");
	if (r->opts->nunder && !object_set__gates(r->objs))
		fprintf(stderr,
			"sledtrace: warning: --under matched no traced function: "
			"every call was left out\n");
	warn_lost(untraced, "child process", "es",
		  "could not be traced (traced-process map full or out of memory): their "
		  "calls are missing");
	/* '?' alone is a thread of a -p target that ended during the attach. */
	if (idents || (names->unknown && r->opts->verbose))
		fprintf(stderr,
			"sledtrace: warning: %" PRIu64
			" thread or process name%s lost (ring buffer "
			"full); %" PRIu64 " read from /proc, %" PRIu64 " shown as '?'\n",
			idents, idents == 1 ? "" : "s", names->from_proc, names->unknown);
	if (w->holds && r->opts->verbose)
		fprintf(stderr,
			"sledtrace: timing: %" PRIu64
			" holds at new mappings, mean %.3f ms, "
			"max %.3f ms\n",
			w->holds, (double)w->hold_ns_sum / (double)w->holds / 1e6,
			(double)w->hold_ns_max / 1e6);
	if ((w->covered || w->unconfirmed_resumes) && r->opts->verbose)
		fprintf(stderr,
			"sledtrace: holds: %" PRIu64
			" covered by an earlier resume of their process, "
			"%" PRIu64 " resumes without every thread stopped\n",
			w->covered, w->unconfirmed_resumes);
}

/* A warning, so --quiet keeps it: it explains the trace, not progress. */
static void warn_runtime(const struct record *r, const struct record_summary *sum)
{
	if (r->runtime == XRAY_RUNTIME_PATCHES_PREMAIN)
		fprintf(stderr,
			"sledtrace: warning: %s links LLVM's XRay runtime and XRAY_OPTIONS has "
			"patch_premain=true: the runtime rewrote the sleds before main, and a probe "
			"on a rewritten sled never fires (%llu of %llu functions hit); run it "
			"without patch_premain\n",
			r->path, (unsigned long long)sum->functions_hit,
			(unsigned long long)sum->functions_attached);
	else if (r->runtime == XRAY_RUNTIME_LINKED && !sum->functions_hit &&
		 sum->functions_attached && !r->opts->no_events) /* none can be, then */
		fprintf(stderr,
			"sledtrace: warning: no function was hit, and %s links LLVM's XRay "
			"runtime: if it patched its own sleds (__xray_patch, XRAY_OPTIONS "
			"patch_premain), probes on them never fire\n",
			r->path);
}

/* -o NAME.gz: the trace is gzip'd as it is written, into the same atomic
 * output a plain trace goes to.  Its chunks are deflated already: a gzip
 * level that compresses would spend as much CPU as the writer itself, in
 * the event loop, to save about 1%, so the gzip layer stores them. */
#define RECORD_GZIP_LEVEL 0

static bool wants_gzip(const char *out)
{
	size_t n = strlen(out);

	return n >= 4 && !strcmp(out + n - 3, ".gz");
}

int record__trace_sink(struct record *r, struct byte_sink *out)
{
	int ret;

	*out = byte_sink__fd(r->out.fd);
	if (!wants_gzip(r->opts->output))
		return 0;
	if ((ret = gzout__new(*out, RECORD_GZIP_LEVEL, &r->gz)))
		return ret;
	*out = gzout__sink(r->gz);
	/* The gzip header now: an output that takes no bytes fails here,
	 * before the command runs, as a plain trace's header would. */
	return gzout__flush(r->gz);
}

/* The gzip trailer, then the file gets its name; on an error the unnamed
 * file is dropped with the rest (record__free). */
static int commit(struct record *r, char *err, size_t errlen)
{
	int ret = r->gz ? gzout__finish(r->gz) : 0;

	if (ret) {
		snprintf(err, errlen, "cannot write %s: %s", r->out.path, strerror(-ret));
		return ret;
	}
	return output_file__commit(&r->out, err, errlen);
}

/* coverage__read_bpf's view of the objects: kernel file ids (MKDEV
 * encoding) to the object and since when its probes are live. */
static const char *object_at(void *ctx, uint64_t dev, uint64_t ino, uint64_t *live_ns)
{
	bool copy;
	const struct traced_object *o = object_set__find(ctx, ((dev >> 20) << 32) | (dev & 0xfffff),
							 ino, &copy);

	if (!o)
		return NULL;
	*live_ns = (copy ? !o->copy_bound : o->attach_failed) ? 0 : o->live_ns;
	return o->path;
}

/* Every window where probes may not have been live goes into the trace. */
static int write_gaps(struct record *r, struct trace_stats *st)
{
	int err = 0;

	if (r->skel && r->skel->rodata->hold_mappings)
		err = coverage__read_bpf(&r->gaps, bpf_map__fd(r->skel->maps.gaps), object_at,
					 r->objs);
	if (!err)
		err = trace_gaps__emit(&r->gaps, r->fb);
	st->coverage_gaps = r->gaps.n;
	return err;
}

/* --strict: what keeps the trace from being exact, or 0 when nothing. */
static uint64_t inexact(struct record *r, const struct trace_stats *st)
{
	return trace_stats__ring_lost(st) + st->coverage_gaps + counter(r, SLED_CTR_UNHELD) +
	       counter(r, SLED_CTR_LOST_CONTROL) + counter(r, SLED_CTR_UNTRACED) +
	       counter(r, SLED_CTR_GAPS_LOST) + counter(r, SLED_CTR_GATES_LOST) +
	       counter(r, SLED_CTR_UNREPAIRED);
}

static int strict_status(struct record *r, const struct trace_stats *st)
{
	uint64_t n = inexact(r, st);

	if (!r->opts->strict || !n)
		return r->status;
	fprintf(stderr,
		"sledtrace: --strict: the trace is not exact: %" PRIu64 " events dropped, %" PRIu64
		" coverage gaps, %" PRIu64 " other losses (see the warnings above)\n",
		trace_stats__ring_lost(st), st->coverage_gaps,
		n - trace_stats__ring_lost(st) - st->coverage_gaps);
	return r->status ? r->status : 3;
}

/* What a budget cost, measured: the command's CPU time against its own
 * untraced run's (noise included: one run a side). */
static void say_budget(const struct record *r, const struct trace_stats *st)
{
	double added;

	if (!st->budget_ppm || !st->untraced_cpu_ns || !st->program_cpu_ns || r->opts->quiet)
		return;
	added = ((double)st->program_cpu_ns - (double)st->untraced_cpu_ns) /
		(double)st->untraced_cpu_ns;
	fprintf(stderr,
		"sledtrace: budget %g%%: the program used %.1f ms of CPU traced, %.1f ms "
		"untraced (%+.1f%%, one run each)\n",
		(double)st->budget_ppm / 1e4, (double)st->program_cpu_ns / 1e6,
		(double)st->untraced_cpu_ns / 1e6, added * 100);
}

int record__finish(struct record *r)
{
	struct trace_stats st = *collector__stats(r->col);
	struct record_summary sum = { 0 };
	uint64_t leaf;
	char err[512];
	int ret;

	st.ringbuf_drops = counter(r, SLED_CTR_DROPS);
	st.switch_drops = counter(r, SLED_CTR_SWITCH_DROPS);
	st.no_sched = r->opts->no_sched;
	st.gated_out = counter(r, SLED_CTR_GATED);
	/* the calls the kernel left out; the collector's filter adds those it
	 * decided itself (frame_filter.c) */
	st.short_dropped = counter(r, SLED_CTR_SHORT);
	st.max_depth_dropped = counter(r, SLED_CTR_DEEP);
	st.probe_entry_ns = r->calib.entry_ns;
	st.probe_exit_ns = r->calib.exit_ns;
	st.budget_ppm = (uint64_t)(r->opts->budget * 1e6 + 0.5);
	st.budget_unprobed = object_set__unprobed(r->objs);
	st.program_cpu_ns = r->targets.n ? targets__cpu_ns(&r->targets) - r->targets_cpu_ns
					 : r->child.cpu_ns;
	st.untraced_cpu_ns = r->opts->untraced_cpu_ns;
	leaf = kernel_leaf_min(r);
	if (leaf)
		frame_builder__leaf(r->fb, leaf);
	for (size_t i = 0; i < object_set__count(r->objs); i++)
		st.ignored_sleds += object_set__get(r->objs, i)->map->ignored_sleds;
	ret = write_gaps(r, &st);
	if (ret)
		return record__fail(ret, "cannot write %s: %s", r->out.path, strerror(-ret));
	ret = frame_builder__finish(r->fb, &st);
	if (ret)
		return record__fail(ret, "cannot write %s: %s", r->out.path, strerror(-ret));
	ret = commit(r, err, sizeof(err));
	if (ret)
		return record__fail(ret, "%s", err);
	progress__clear(&r->prog);
	report_holds(r);
	record__sum_plans(r);
	sum.events = st.events;
	sum.functions_hit = collector__functions_hit(r->col);
	sum.functions_attached = r->plan.functions;
	sum.drops = st.ringbuf_drops;
	sum.switch_drops = st.switch_drops;
	sum.bytes = r->gz ? gzout__bytes(r->gz) : r->pw ? perfetto_writer__bytes(r->pw) : 0;
	sum.discarded = !r->pw;
	sum.inferred = st.inferred_exits;
	sum.unmatched = st.unmatched_exits;
	sum.unfinished = st.unfinished;
	sum.gaps = st.coverage_gaps;
	sum.path = r->out.path;
	progress__summary(&r->prog, &sum);
	coverage__warn(&r->gaps, 10);
	warn_runtime(r, &sum);
	if (!object_set__count(r->objs))
		fprintf(stderr,
			"sledtrace: no process %s mapped an object with sleds "
			"(build with clang -fxray-instrument)\n",
			r->targets.n ? "traced" : "of the tree");
	say_budget(r, &st);
	if (!r->opts->quiet && !r->opts->no_events)
		probe_note__say(r->objs, r->fb, &st, stderr);
	r->events = st.events;
	r->cpu_ns_finished = record__self_cpu_ns();
	return strict_status(r, &st);
}
