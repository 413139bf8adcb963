// SPDX-License-Identifier: MIT
/* record.c: see record.h.  The recording owns every resource it opens and
 * record__free releases whatever exists, so each phase can fail and return
 * without cleanup code of its own. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/attach.h"
#include "record/collector.h"
#include "object/elf_object.h"
#include "model/frame_filter.h"
#include "model/frames.h"
#include "probe/launch.h"
#include "util/gzout.h"
#include "util/output_file.h"
#include "format/perfetto_writer.h"
#include "probe/probe_plan.h"
#include "record/progress.h"
#include "record/record.h"
#include "sledtrace.h"
#include "sledtrace.skel.h"
#include "probe/select.h"
#include "object/symbol_map.h"
#include "object/symbols.h"
#include "object/xray_map.h"
#include "object/xray_runtime.h"

#define POLL_MS 50 /* drain at least this often: wakeups are batched */

/* A termination signal sent to sledtrace is passed on to the command; the
 * trace is finished when the command exits, as on any other exit. */
static volatile sig_atomic_t pending_signal;

static void on_signal(int sig)
{
	pending_signal = sig;
}

static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* The terminal's ^C and ^\ reach the command too: let it decide. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
}

struct record {
	const struct record_opts *opts;
	char path[4096];
	struct elf_object *obj;
	struct xray_map *map;
	struct symbols *syms;
	bool *selected; /* by XRay id */
	size_t nselected;
	struct sledtrace_bpf *skel;
	struct attacher *att;
	struct bpf_link *exit_link; /* thread exits of the traced process */
	struct object_plan plan;
	struct output_file out;
	struct perfetto_writer *pw;
	struct frame_filter *ff;
	struct frame_builder *fb;
	struct collector *col;
	struct ring_buffer *rb;
	struct launch child;
	struct progress prog;
	int epfd;
	int status;
	uint64_t attach_ns;
	int cb_err;
	bool child_done;
	enum xray_runtime runtime; /* the target's own XRay runtime */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fail(int err, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "sledtrace: ");
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	return err < 0 ? err : -EINVAL;
}

#define MANY_SYMBOL_PROBES 10000

static int select_probed(struct record *r, char *err, size_t errlen)
{
	struct filter *f = NULL;
	int ret = 0;

	if (r->opts->sel.n)
		ret = select_args__filter(&r->opts->sel, elf_object__build_id(r->obj), &f, err,
					  errlen);
	if (!ret)
		ret = select_functions(f, r->syms, r->map, &r->selected, &r->nselected);
	filter__free(f);
	if (ret)
		return ret;
	if (!r->nselected && !r->opts->sel.allow_empty) {
		snprintf(err, errlen,
			 "the filter selects none of the %zu functions of %s "
			 "(check with 'sledtrace list -F', or pass --allow-empty)",
			 r->map->nfuncs, r->path);
		return -ENOENT;
	}
	if (r->opts->no_xray && r->nselected > MANY_SYMBOL_PROBES && !r->opts->quiet)
		fprintf(stderr,
			"sledtrace: warning: probing %zu functions by symbol; every call traps "
			"into the kernel (narrow it with -F)\n",
			r->nselected);
	return 0;
}

int record__open(const struct record_opts *opts, struct record **out)
{
	struct symbols_opts so = { .mangled = opts->mangled };
	struct record *r = calloc(1, sizeof(*r));
	char err[8192];
	int ret;

	if (!r)
		return -ENOMEM;
	*out = r;
	r->opts = opts;
	r->epfd = -1;
	r->out.fd = -1;
	r->child.pid = -1;
	ret = launch__resolve(opts->argv[0], r->path, sizeof(r->path));
	if (ret)
		return fail(ret, "%s: %s", opts->argv[0],
			    ret == -ENOENT ? "command not found" : strerror(-ret));
	ret = elf_object__open(r->path, &r->obj, err, sizeof(err));
	if (!ret && opts->no_xray)
		ret = symbol_map__build(r->obj, opts->debug_dir, &r->map, err, sizeof(err));
	else if (!ret)
		ret = xray_map__load(r->obj, &r->map, err, sizeof(err));
	if (!ret)
		ret = symbols__load(r->obj, r->map, &so, &r->syms, err, sizeof(err));
	if (!ret)
		ret = select_probed(r, err, sizeof(err));
	if (!ret && !opts->no_xray)
		r->runtime = xray_runtime__check(r->obj, getenv("XRAY_OPTIONS"));
	/* Last of the checks, all before anything runs: a FIFO's open waits
	 * for its reader. */
	if (!ret)
		ret = output_file__create(&r->out, opts->output, err, sizeof(err));
	if (ret)
		return fail(ret, "%s", err, NULL);
	return 0;
}

static int prepare_programs(struct record *r)
{
	struct bpf_program *progs[] = {
		r->skel->progs.on_entry,
		r->skel->progs.on_exit,
		r->skel->progs.on_tail,
		r->skel->progs.on_ret,
	};

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		int err = attacher__prepare(r->att, progs[i]);

		if (err)
			return err;
	}
	return 0;
}

/* libbpf's own messages (verifier logs, probing) are for developers: one
 * line of ours says what failed; -vv shows libbpf's warnings too, -vvv its
 * debug messages.  libbpf's callback has no context, hence the static. */
static int libbpf_verbosity;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (libbpf_verbosity < 2 || (level == LIBBPF_DEBUG && libbpf_verbosity < 3))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int record__load(struct record *r)
{
	struct attach_opts ao = { .mode = r->opts->attach, .pid = -1 };
	int err;

	libbpf_verbosity = r->opts->verbose;
	libbpf_set_print(libbpf_print);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	r->skel = sledtrace_bpf__open();
	if (!r->skel)
		return fail(-errno, "cannot open the BPF object: %s", strerror(errno), NULL);
	r->skel->rodata->wakeup_bytes = r->opts->ring_size / 4;
	r->skel->rodata->no_events = r->opts->no_events;
	err = bpf_map__set_max_entries(r->skel->maps.events, (uint32_t)r->opts->ring_size);
	if (!err)
		err = attacher__new(&ao, &r->att);
	if (!err)
		err = prepare_programs(r);
	if (!err)
		err = sledtrace_bpf__load(r->skel);
	if (err == -EPERM || err == -EACCES)
		return fail(
			err,
			"cannot load BPF programs: %s (sledtrace needs root, or CAP_BPF and CAP_PERFMON)",
			strerror(-err), NULL);
	if (err)
		return fail(err, "cannot load BPF programs: %s", strerror(-err), NULL);
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct record *r = ctx;

	if (size < sizeof(struct sled_event))
		return 0;
	r->cb_err = collector__event(r->col, data);
	return r->cb_err;
}

/* Every function with its identity: the object by absolute path and
 * build-id, the raw symbol and the XRay function address. */
static int register_functions(struct record *r)
{
	struct collector_object co = { .fid_base = 0, .nfuncs = (uint32_t)r->map->nfuncs };
	char *abs = realpath(elf_object__path(r->obj), NULL);
	int err = collector__add_object(r->col, &co);

	for (uint32_t id = 1; !err && id <= r->map->nfuncs; id++) {
		const struct symbol_info *si = symbols__get(r->syms, id);
		struct trace_function fn = {
			.id = id,
			.name = si->name,
			.file = si->file,
			.line = si->line,
			.mangled = si->mangled,
			.object = abs ? abs : elf_object__path(r->obj),
			.build_id = elf_object__build_id(r->obj),
			.addr = r->map->funcs[id - 1].addr,
		};

		err = frame_builder__function(r->fb, &fn);
	}
	free(abs);
	return err;
}

static int null_frame(void *ctx, const struct trace_thread *th, const struct frame *stack,
		      uint32_t depth)
{
	(void)ctx;
	(void)th;
	(void)stack;
	(void)depth;
	return 0;
}

static int null_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		      uint32_t depth, uint64_t ts, enum frame_end how)
{
	(void)ts;
	(void)how;
	return null_frame(ctx, th, stack, depth);
}

/* Where -o is /dev/null no trace is built, but the frames are still
 * rebuilt so the summary's counts are those of a real recording. */
static const struct frame_sink_ops null_ops = { .enter = null_frame, .leave = null_leave };

static int open_output(struct record *r)
{
	struct perfetto_writer_opts po = { 0 };
	struct frame_sink sink = { &null_ops, NULL };
	int ret;

	if (!output_file__discards(&r->out)) {
		ret = perfetto_writer__new(r->out.fd, &po, &r->pw);
		if (ret)
			return fail(ret, "cannot start the trace writer: %s", strerror(-ret), NULL);
		sink = perfetto_writer__sink(r->pw);
	}
	if (r->pw && (r->opts->max_depth || r->opts->min_duration_ns)) {
		struct frame_filter_opts fo = { .max_depth = r->opts->max_depth,
						.min_duration_ns = r->opts->min_duration_ns };

		ret = frame_filter__new(&sink, &fo, &r->ff);
		if (ret)
			return fail(ret, "out of memory", NULL, NULL);
		sink = frame_filter__sink(r->ff);
	}
	r->fb = frame_builder__new(&sink);
	if (!r->fb)
		return fail(-ENOMEM, "out of memory", NULL, NULL);
	ret = collector__new(r->fb, &r->col);
	if (!ret)
		ret = register_functions(r);
	if (ret)
		return fail(ret, "cannot start the collector: %s", strerror(-ret), NULL);
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	if (!r->rb)
		return fail(-errno, "cannot open the ring buffer: %s", strerror(errno), NULL);
	return 0;
}

static int queue_and_attach(struct record *r)
{
	struct probe_programs progs = {
		.entry = r->skel->progs.on_entry,
		.exit = r->skel->progs.on_exit,
		.tail = r->skel->progs.on_tail,
		.ret = r->skel->progs.on_ret,
	};
	char err[1024];
	uint64_t t0;
	int ret;

	ret = probe_plan__queue(r->att, &progs, r->obj, r->map, 0, r->opts->exits, r->selected,
				&r->plan);
	if (ret)
		return fail(ret, "cannot plan probes: %s", strerror(-ret), NULL);
	t0 = now_ns();
	ret = attacher__attach(r->att, err, sizeof(err));
	r->attach_ns = now_ns() - t0;
	if (ret)
		return fail(ret, "%s", err, NULL);
	return 0;
}

/* Thread exits close what a thread left open, at the right time, and keep
 * a reused tid from inheriting a dead thread's frames. */
static int watch_thread_exits(struct record *r)
{
	uint32_t zero = 0, tgid = (uint32_t)r->child.pid;
	int err = bpf_map_update_elem(bpf_map__fd(r->skel->maps.target_tgid), &zero, &tgid, 0);

	if (err)
		return fail(-errno, "cannot set the traced pid: %s", strerror(errno), NULL);
	r->exit_link = bpf_program__attach(r->skel->progs.on_thread_exit);
	if (!r->exit_link)
		return fail(-errno, "cannot watch thread exits: %s", strerror(errno), NULL);
	return 0;
}

/* "uretprobe", or "sled, uretprobe for 12 leaf functions" under auto. */
static const char *exits_summary(const struct record *r, char *buf, size_t len)
{
	const struct object_plan *p = &r->plan;
	bool mixed = p->exits != EXIT_URETPROBE && p->ret_functions;

	if (mixed && p->ret_functions == p->functions)
		snprintf(buf, len, "uretprobe, all leaf functions");
	else if (mixed)
		snprintf(buf, len, "%s, uretprobe for %zu leaf function%s",
			 probe_plan__exit_name(p->exits), p->ret_functions,
			 p->ret_functions == 1 ? "" : "s");
	else
		snprintf(buf, len, "%s", probe_plan__exit_name(p->exits));
	return buf;
}

int record__start(struct record *r)
{
	char exits[64];
	int ret = open_output(r);

	if (ret)
		return ret;
	ret = launch__spawn(&r->child, r->path, r->opts->argv);
	if (ret)
		return fail(ret, "cannot start %s: %s", r->path, strerror(-ret));
	attacher__set_pid(r->att, r->child.pid);
	ret = watch_thread_exits(r);
	if (!ret)
		ret = queue_and_attach(r);
	if (ret)
		return ret;
	catch_signals();
	ret = launch__release(&r->child);
	if (ret) {
		r->child.pid = -1;
		return fail(ret, "cannot run %s: %s", r->path, strerror(-ret));
	}
	if (r->opts->verbose)
		fprintf(stderr,
			"sledtrace: plan: %s: %zu of %zu functions selected, %zu sleds, %zu probes "
			"queued, %zu functions with uretprobe exits, ring %llu KiB\n",
			r->path, r->plan.functions, r->map->nfuncs, r->plan.sleds, r->plan.probes,
			r->plan.ret_functions, (unsigned long long)(r->opts->ring_size >> 10));
	if (!r->opts->quiet)
		fprintf(stderr,
			"sledtrace: %zu functions, %zu sleds, %zu probes attached in %.1f ms "
			"(%s, exits: %s)\n",
			r->plan.functions, r->plan.sleds, attacher__probe_count(r->att),
			(double)r->attach_ns / 1e6,
			attacher__mode(r->att) == ATTACH_MULTI ? "uprobe_multi" : "perf events",
			exits_summary(r, exits, sizeof(exits)));
	return 0;
}

static uint64_t counter(struct record *r, uint32_t idx)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t sum = 0, *vals;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && !bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.counters), &idx, vals))
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

static int drain(struct record *r)
{
	int n = ring_buffer__consume(r->rb);

	if (n < 0 && r->cb_err)
		return fail(r->cb_err, "writing the trace failed: %s", strerror(-r->cb_err), NULL);
	if (n < 0 && n != -EINTR)
		return fail(n, "reading the ring buffer failed: %s", strerror(-n), NULL);
	return 0;
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
	if (r->child.pidfd >= 0 && epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->child.pidfd, &ev))
		return -errno;
	return 0;
}

int record__run(struct record *r)
{
	struct epoll_event evs[2];
	int err = watch(r);

	if (err)
		return fail(err, "cannot watch the child: %s", strerror(-err), NULL);
	progress__init(&r->prog, r->opts->quiet);
	while (!r->child_done) {
		int n = epoll_wait(r->epfd, evs, 2, POLL_MS);

		for (int i = 0; i < n; i++)
			if (evs[i].data.u32 == 1)
				r->child_done = true;
		if (pending_signal) {
			kill(r->child.pid, pending_signal);
			pending_signal = 0;
		}
		err = drain(r);
		if (err)
			return err;
		if (progress__due(&r->prog))
			progress__tick(&r->prog, collector__stats(r->col)->events,
				       counter(r, SLED_CTR_DROPS));
	}
	r->status = launch__wait(&r->child);
	r->child.pid = -1;
	/* Everything the child did is queued by now. */
	return drain(r);
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
		 sum->functions_attached)
		fprintf(stderr,
			"sledtrace: warning: no function was hit, and %s links LLVM's XRay "
			"runtime: if it patched its own sleds (__xray_patch, XRAY_OPTIONS "
			"patch_premain), probes on them never fire\n",
			r->path);
}

static int gzip_fd(FILE *f, void *ctx)
{
	return gzout__copy_fd(*(const int *)ctx, f);
}

/* -o NAME.gz: the trace was written plainly (the writer streams to a file
 * descriptor); it is gzip'd into NAME.gz and the plain copy dropped. */
static bool wants_gzip(const char *out)
{
	size_t n = strlen(out);

	return n >= 4 && !strcmp(out + n - 3, ".gz");
}

static int commit(struct record *r, char *err, size_t errlen)
{
	const char *out = r->opts->output;
	char self[64];
	int ret, fd;

	if (!wants_gzip(out) || r->out.kind != OUTPUT_ATOMIC)
		return output_file__commit(&r->out, err, errlen);
	/* the plain copy is write-only (and may have no name): reopen it */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", r->out.fd);
	if ((fd = open(self, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot read back the trace for %s: %s", out,
			 strerror(errno));
	} else {
		ret = output_file__write_stream(out, gzip_fd, &fd, err, errlen);
		close(fd);
	}
	output_file__abort(&r->out);
	return ret;
}

int record__finish(struct record *r)
{
	struct trace_stats st = *collector__stats(r->col);
	struct record_summary sum = { 0 };
	char err[512];
	int ret;

	st.ringbuf_drops = counter(r, SLED_CTR_DROPS);
	st.ignored_sleds = r->map->ignored_sleds;
	ret = frame_builder__finish(r->fb, &st);
	if (ret)
		return fail(ret, "cannot write %s: %s", r->out.path, strerror(-ret));
	ret = commit(r, err, sizeof(err));
	if (ret)
		return fail(ret, "%s", err, NULL);
	progress__clear(&r->prog);
	sum.events = st.events;
	sum.functions_hit = collector__functions_hit(r->col);
	sum.functions_attached = r->plan.functions;
	sum.drops = st.ringbuf_drops;
	sum.bytes = r->pw ? perfetto_writer__bytes(r->pw) : 0;
	sum.discarded = !r->pw;
	sum.inferred = st.inferred_exits;
	sum.unmatched = st.unmatched_exits;
	sum.unfinished = st.unfinished;
	sum.path = r->out.path;
	progress__summary(&r->prog, &sum);
	warn_runtime(r, &sum);
	return r->status;
}

/* Detaching perf-event uprobes waits for an RCU grace period per probe, so
 * it can take long: -v (and the benchmarks) show the time. */
static void detach(struct record *r)
{
	size_t n = r->att ? attacher__probe_count(r->att) : 0;
	uint64_t t0 = now_ns();

	attacher__free(r->att);
	r->att = NULL;
	if (n && r->opts->verbose)
		fprintf(stderr, "sledtrace: timing: attach %.1f ms, detach %.1f ms, %zu probes\n",
			(double)r->attach_ns / 1e6, (double)(now_ns() - t0) / 1e6, n);
}

void record__free(struct record *r)
{
	if (!r)
		return;
	if (r->child.pid > 0)
		launch__abort(&r->child);
	output_file__abort(&r->out);
	if (r->epfd >= 0)
		close(r->epfd);
	ring_buffer__free(r->rb);
	collector__free(r->col);
	frame_builder__free(r->fb);
	frame_filter__free(r->ff);
	perfetto_writer__free(r->pw);
	detach(r);
	bpf_link__destroy(r->exit_link);
	sledtrace_bpf__destroy(r->skel);
	symbols__free(r->syms);
	free(r->selected);
	xray_map__free(r->map);
	elf_object__free(r->obj);
	free(r);
}
