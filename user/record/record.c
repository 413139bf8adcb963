// SPDX-License-Identifier: MIT
/* record.c: see record.h: the phases open, load, start and free.  The
 * recording owns every resource it opens and record__free releases
 * whatever exists, so each phase can fail and return without cleanup code
 * of its own.  The process-scope hooks are record_hooks.c, the held
 * command record_spawn.c, the event loop record_run.c, the end
 * record_finish.c, the helpers they share record_base.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "process/proc_maps.h"
#include "process/sled_rewrite.h"
#include "record/core_btf.h"
#include "record/record_int.h"
#include "sledtrace.h"
#include "sledtrace.skel.h"

#define MANY_SYMBOL_PROBES 10000

static int check_selection(struct record *r)
{
	size_t n = object_set__selected(r->objs);

	if (!n && !r->opts->sel.allow_empty && object_set__count(r->objs)) {
		fprintf(stderr,
			"sledtrace: the filter selects none of the %zu functions of %s "
			"(check with 'sledtrace list -F', or pass --allow-empty)\n",
			object_set__functions(r->objs),
			object_set__count(r->objs) == 1 ? object_set__get(r->objs, 0)->path
							: "the traced objects");
		return -ENOENT;
	}
	if (r->opts->no_xray && n > MANY_SYMBOL_PROBES && !r->opts->quiet)
		fprintf(stderr,
			"sledtrace: warning: probing %zu functions by symbol; every call traps "
			"into the kernel (narrow it with -F)\n",
			n);
	return 0;
}

static int open_command(struct record *r, char *err, size_t errlen)
{
	const char *cmd = r->opts->argv[0];
	struct stat st;
	int ret = launch__resolve(cmd, r->path, sizeof(r->path));

	if (ret) {
		snprintf(err, errlen, "%s: %s", cmd,
			 ret == -ENOENT ? "command not found" : strerror(-ret));
		return ret;
	}
	if (!r->opts->as_root) {
		ret = run_as__from_sudo(&r->run_as, err, errlen);
		if (ret)
			return ret;
		r->child.run_as = &r->run_as;
	}
	if (stat(r->path, &st)) {
		snprintf(err, errlen, "%s: %s", r->path, strerror(errno));
		return -errno;
	}
	ret = object_set__add(r->objs, r->path, r->path, proc_maps__dev(st.st_dev), st.st_ino, err,
			      errlen);
	if (!ret && !r->opts->no_xray)
		r->runtime = xray_runtime__check(object_set__get(r->objs, 0)->elf,
						 getenv("XRAY_OPTIONS"));
	/* A script, a shell or any binary without sleds may start what has
	 * them: objects are found as the tree execs and maps them. */
	if ((ret == -ENODATA || ret == -ENOEXEC) && !r->opts->no_xray)
		return 0;
	return ret;
}

int record__open(const struct record_opts *opts, struct record **out)
{
	struct object_set_opts oo = { .sel = &opts->sel,
				      .mangled = opts->mangled,
				      .no_xray = opts->no_xray,
				      .debug_dir = opts->debug_dir,
				      .globs = opts->objects,
				      .nglobs = opts->nobjects,
				      .under = opts->under,
				      .nunder = opts->nunder,
				      .budget = opts->plan };
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
	r->child.ns_fd = -1;
	r->keeper.pid = -1;
	r->hooks.mmap_fds[0] = r->hooks.mmap_fds[1] = -1;
	r->warm = attach_warm__start(); /* its wait overlaps open and load */
	if ((opts->ncaptures || opts->nflows) &&
	    (ret = capture_set__new(opts->captures, opts->ncaptures, opts->flows, opts->nflows,
				    &r->capture, err, sizeof(err))))
		return record__fail(ret, "%s", ret == -ENOMEM ? "out of memory" : err);
	oo.capture = r->capture;
	ret = object_set__new(&oo, &r->objs);
	if (ret)
		return record__fail(ret, "out of memory");
	if (opts->npids) {
		ret = targets__open(&r->targets, opts->pids, opts->npids, err, sizeof(err));
		if (!ret)
			ret = targets__discover(&r->targets, r->objs, opts->follow, err,
						sizeof(err));
	} else {
		ret = open_command(r, err, sizeof(err));
	}
	if (ret)
		return record__fail(ret, "%s", err);
	ret = check_selection(r);
	if (ret)
		return ret;
	/* a flow must name functions of what is traced from the start */
	if (r->capture && capture_set__check_flows(r->capture, err, sizeof(err))) {
		record__fail(-EINVAL, "%s", err);
		return RECORD_EUSAGE;
	}
	if (opts->nalloc_fns &&
	    alloc_probes__check(opts->alloc_fns, opts->nalloc_fns, opts->npids ? NULL : r->path,
				&r->run_as, opts->pids, opts->npids, err, sizeof(err))) {
		record__fail(-EINVAL, "%s", err);
		return RECORD_EUSAGE;
	}
	/* Last of the checks, all before anything runs: a FIFO's open waits
	 * for its reader. */
	ret = output_file__create(&r->out, opts->output, err, sizeof(err));
	if (ret)
		return record__fail(ret, "%s", err);
	return 0;
}

/* The call programs get their attach type; the capture ones are loaded
 * only for --capture: their verification costs ~10 ms of every start.
 * They are sleepable where the kernel allows, so that they can read
 * memory the target has not touched yet (bpf/capture.h). */
static int prepare_programs(struct record *r)
{
	struct bpf_program *calls[] = { r->skel->progs.on_sled, r->skel->progs.on_ret };
	struct bpf_program *captures[] = { r->skel->progs.on_capture_entry,
					   r->skel->progs.on_capture_exit,
					   r->skel->progs.on_capture_ret };
	bool capturing = r->opts->ncaptures > 0 || r->opts->nflows > 0;
	int err = 0;

	for (size_t i = 0; !err && i < sizeof(calls) / sizeof(calls[0]); i++)
		err = attacher__prepare(r->att, calls[i]);
	for (size_t i = 0; !err && i < sizeof(captures) / sizeof(captures[0]); i++) {
		err = capturing ? attacher__prepare_sleepable(r->att, captures[i])
				: bpf_program__set_autoload(captures[i], false);
		r->skel->rodata->capture_faults = err == 1;
		err = err < 0 ? err : 0;
	}
	if (!err && capturing && r->opts->verbose)
		fprintf(stderr, "sledtrace: captures: %s\n",
			r->skel->rodata->capture_faults
				? "sleepable, pages not touched yet are faulted in"
				: "not sleepable (kernel without sleepable uprobes): memory "
				  "the target has not touched yet reads as <invalid>");
	return err;
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

/* A command's whole tree is traced; -p targets' children with --follow. */
static bool following(const struct record *r)
{
	return !r->opts->npids || r->opts->follow;
}

/* The kernel BTF libbpf relocates against is parsed at load: the embedded
 * minimal one is freed right after. */
static int open_object(struct record *r, struct core_btf **cb)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	int err = core_btf__new(cb);

	if (err)
		return record__fail(err, "cannot open the BPF object: %s", strerror(-err));
	oo.btf_custom_path = core_btf__path(*cb);
	if (r->opts->verbose)
		fprintf(stderr, "sledtrace: kernel BTF for CO-RE: %s\n", core_btf__describe(*cb));
	r->skel = sledtrace_bpf__open_opts(&oo);
	if (!r->skel)
		return record__fail(-errno, "cannot open the BPF object: %s", strerror(errno));
	return 0;
}

int record__load(struct record *r)
{
	struct attach_opts ao = { .mode = r->opts->attach, .pid = -1 };
	struct core_btf *cb = NULL;
	int err;

	libbpf_verbosity = r->opts->verbose;
	libbpf_set_print(libbpf_print);
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	err = open_object(r, &cb);
	if (err) {
		core_btf__free(cb);
		return err;
	}
	r->skel->rodata->wakeup_bytes = r->opts->ring_size / 4;
	r->skel->rodata->no_events = r->opts->no_events;
	r->skel->rodata->causes_on = !r->opts->no_causes;
	r->skel->rodata->gating = r->opts->nunder > 0;
	r->skel->rodata->kfiltering = r->opts->max_depth || r->opts->min_duration_ns;
	r->skel->rodata->kf_max_depth = r->opts->max_depth;
	r->skel->rodata->kf_min_ns = r->opts->min_duration_ns;
	/* One process: the kernel's pid filter; several: the traced map. */
	r->skel->rodata->filter_tgids = r->opts->npids > 1 || following(r);
	r->skel->rodata->follow = following(r);
	/* --no-xray probes the executable's symbols, not every library's. */
	r->skel->rodata->hold_mappings = !r->opts->no_xray;
	err = bpf_map__set_max_entries(r->skel->maps.events, (uint32_t)r->opts->ring_size);
	if (!err)
		err = attacher__new(&ao, &r->att);
	if (!err)
		err = prepare_programs(r);
	if (!err)
		err = sledtrace_bpf__load(r->skel);
	core_btf__free(cb);
	if (err == -EPERM || err == -EACCES)
		return record__fail(
			err,
			"cannot load BPF programs: %s (sledtrace needs root, or CAP_BPF and CAP_PERFMON)",
			strerror(-err));
	if (err)
		return record__fail(err, "cannot load BPF programs: %s", strerror(-err));
	if (!r->skel->rodata->hold_mappings)
		return 0;
	err = keeper__start(&r->keeper, bpf_map__fd(r->skel->maps.held));
	if (err)
		return record__fail(err, "cannot start: %s", strerror(-err));
	return 0;
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct record *r = ctx;

	unsigned kind = collector__kind(data, size);

	if (kind == SLED_KIND_MAPPED || kind == SLED_KIND_FORK_HOLD)
		r->cb_err = mapping_watch__on_mapped(&r->watch, data);
	else
		r->cb_err = collector__event(r->col, data, size);
	if (r->allocs)
		record__allocs_event(r, data, kind);
	return r->cb_err;
}

/* Where -o is /dev/null no trace is built, but the frames are still
 * rebuilt so the summary's counts are those of a real recording. */
static const struct frame_sink_ops null_ops = { 0 };

static int open_output(struct record *r)
{
	struct perfetto_writer_opts po = { 0 };
	struct frame_sink sink = { &null_ops, NULL };
	struct byte_sink out;
	int ret;

	if (!output_file__discards(&r->out)) {
		ret = record__trace_sink(r, &out);
		if (!ret)
			ret = perfetto_writer__new(out, &po, &r->pw);
		if (ret)
			return record__fail(ret, "cannot start the trace writer: %s",
					    strerror(-ret));
		sink = perfetto_writer__sink(r->pw);
	}
	if (r->pw && (r->opts->max_depth || r->opts->min_duration_ns)) {
		struct frame_filter_opts fo = { .max_depth = r->opts->max_depth,
						.min_duration_ns = r->opts->min_duration_ns };

		ret = frame_filter__new(&sink, &fo, &r->ff);
		if (ret)
			return record__fail(ret, "out of memory");
		sink = frame_filter__sink(r->ff);
	}
	r->fb = frame_builder__new(&sink);
	if (!r->fb)
		return record__fail(-ENOMEM, "out of memory");
	/* what record says of times mostly probe cost (probe_note.h) */
	if (!r->opts->quiet && !r->opts->no_events)
		frame_builder__tally(r->fb);
	ret = collector__new(r->fb, &r->col);
	if (!ret && !r->opts->no_causes)
		collector__causes(r->col);
	if (!ret && r->opts->costs)
		collector__costs(r->col);
	if (!ret)
		ret = object_set__register(r->objs, r->col, r->fb);
	if (ret)
		return record__fail(ret, "cannot start the collector: %s", strerror(-ret));
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r, NULL);
	if (!r->rb)
		return record__fail(-errno, "cannot open the ring buffer: %s", strerror(errno));
	return 0;
}

static int queue_and_attach(struct record *r)
{
	struct object_probes probes = record__call_programs(r);
	char err[1024];
	uint64_t t0;
	int ret;

	ret = object_set__queue(r->objs, r->att, &probes, &r->exits);
	if (ret)
		return record__fail(ret, "cannot plan probes: %s", strerror(-ret));
	record__sum_plans(r);
	t0 = record__now_ns();
	ret = attacher__attach(r->att, err, sizeof(err));
	r->attach_ns = record__now_ns() - t0;
	/* A target that exits meanwhile takes its map_files links with it
	 * (ESRCH once its memory is gone, ENOENT once the mapping is): say
	 * that, not which link failed.  A live target keeps the error. */
	if ((ret == -ESRCH || ret == -ENOENT) && r->targets.n)
		targets__check_exiting(&r->targets, 500, err, sizeof(err));
	else if (ret && r->targets.n)
		targets__check_alive(&r->targets, err, sizeof(err));
	if (ret)
		return record__fail(ret, "%s", err);
	return 0;
}

/* The one line that says what was attached, where and how fast, and how
 * returns are seen (probe_plan__describe). */
static void print_attached(struct record *r)
{
	char exits[64], procs[64] = "";
	size_t nobj = object_set__count(r->objs);

	if (r->opts->quiet)
		return;
	if (!nobj) {
		fprintf(stderr,
			"sledtrace: %s%s has no sleds: objects with sleds are probed as "
			"its processes exec and map them (nothing attached yet)\n",
			r->targets.n ? "the process tree of -p " : "", r->targets.n ? "" : r->path);
		return;
	}
	if (r->targets.n == 1)
		snprintf(procs, sizeof(procs), " to process %d", (int)r->targets.pids[0]);
	else if (r->targets.n)
		snprintf(procs, sizeof(procs), " to %zu processes", r->targets.n);
	/* Microseconds shown: an attach that writes no breakpoint yet (the
	 * command is held before its exec) takes tens of them, which one
	 * decimal of a millisecond showed as 0.0. */
	fprintf(stderr,
		"sledtrace: %zu functions, %zu sleds, %zu probes attached%s in %.3f ms "
		"(%s, exits: %s)",
		r->plan.functions, r->plan.sleds, attacher__probe_count(r->att), procs,
		(double)r->attach_ns / 1e6,
		attacher__mode(r->att) == ATTACH_MULTI ? "uprobe_multi" : "perf events",
		probe_plan__describe(&r->plan, exits, sizeof(exits)));
	if (nobj > 1)
		fprintf(stderr, " in %zu objects", nobj);
	fputc('\n', stderr);
}

/* -p: the processes run on; probes appear under them. */
static int start_attached(struct record *r)
{
	struct exit_env env = { .sleds = !r->opts->no_xray };
	char err[512];
	int ret;

	if (exit_policy__resolve(r->opts->exits, &env, &r->exits, err, sizeof(err)))
		return record__fail(-ENOTSUP, "%s", err);
	probe_calib__measure(r->skel, &r->exits, &r->calib);
	attacher__set_pid(r->att, r->targets.n == 1 && !following(r) ? r->targets.pids[0] : -1);
	ret = record__watch_exits(r);
	if (!ret)
		ret = queue_and_attach(r);
	if (!ret)
		ret = record__hook_processes(r);
	if (ret)
		return ret;
	ret = targets__check_alive(&r->targets, err, sizeof(err));
	if (ret)
		return record__fail(ret, "%s", err);
	r->targets_cpu_ns = targets__cpu_ns(&r->targets);
	record__catch_signals(true);
	return 0;
}

static int start_command(struct record *r)
{
	int ret = record__spawn(r);

	if (ret)
		return ret;
	/* The kernel's optimized sleds are calls into a trampoline that a
	 * forked child is not given: such children are stopped and repaired
	 * (fork_text.h). */
	r->skel->bss->fix_forks = r->exits.copy == EXIT_COPY_REWRITTEN &&
				  sled_rewrite__kernel_optimizes();
	/* Links fire in every process; BPF keeps the tree's (traced map). */
	attacher__set_pid(r->att, -1);
	ret = record__watch_exits(r);
	if (!ret)
		ret = queue_and_attach(r);
	if (!ret)
		ret = record__hook_processes(r);
	if (!ret && (ret = mapping_watch__bind_copies(&r->watch)))
		return record__fail(ret, "cannot mark known files: %s", strerror(-ret));
	if (ret)
		return ret;
	/* the command is held: the measure competes with nothing of it */
	probe_calib__measure(r->skel, &r->exits, &r->calib);
	record__catch_signals(false);
	ret = launch__release(&r->child);
	if (ret) {
		r->child.pid = -1;
		return record__fail(ret, "cannot run %s: %s", r->path, strerror(-ret));
	}
	return 0;
}

int record__start(struct record *r)
{
	int ret = open_output(r);

	if (!ret)
		ret = r->targets.n ? start_attached(r) : start_command(r);
	attach_warm__stop(r->warm);
	r->warm = NULL;
	if (ret)
		return ret;
	r->start_ns = record__now_ns();
	if (r->opts->verbose)
		fprintf(stderr,
			"sledtrace: plan: %s: %zu of %zu functions selected in %zu objects, %zu sleds, "
			"%zu probes queued, %zu functions with uretprobe exits, ring %llu KiB\n",
			r->targets.n ? "-p" : r->path, r->plan.functions,
			object_set__functions(r->objs), object_set__count(r->objs), r->plan.sleds,
			r->plan.probes, r->plan.ret_functions,
			(unsigned long long)(r->opts->ring_size >> 10));
	if (r->opts->verbose)
		fprintf(stderr,
			"sledtrace: one probe hit measured at %llu ns at entries, %llu ns at exits "
			"(0: not measured) in %.1f ms\n",
			(unsigned long long)r->calib.entry_ns, (unsigned long long)r->calib.exit_ns,
			(double)r->calib.took_ns / 1e6);
	print_attached(r);
	r->cpu_ns_started = record__self_cpu_ns();
	return 0;
}
static double ms_since(struct timespec *t)
{
	struct timespec now;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
	*t = now;
	return ms;
}

int record__session(const struct record_opts *opts, double ms[6])
{
	int (*const steps[])(struct record *) = { NULL, record__load, record__start, record__run,
						  record__finish };
	double local[6];
	struct record *r = NULL;
	struct timespec t;
	int err;

	if (!ms)
		ms = local;
	clock_gettime(CLOCK_MONOTONIC, &t);
	err = record__open(opts, &r);
	ms[0] = ms_since(&t);
	for (int i = 1; i < 5; i++) {
		if (!err)
			err = steps[i](r);
		ms[i] = err ? 0 : ms_since(&t);
	}
	record__free(r);
	ms[5] = ms_since(&t);
	return err;
}

void record__free(struct record *r)
{
	if (!r)
		return;
	attach_warm__stop(r->warm);
	if (r->child.pid > 0)
		launch__abort(&r->child);
	if (r->child.ns_fd >= 0)
		close(r->child.ns_fd);
	output_file__abort(&r->out);
	if (r->epfd >= 0)
		close(r->epfd);
	ring_buffer__free(r->rb);
	collector__free(r->col);
	frame_builder__free(r->fb);
	frame_filter__free(r->ff);
	perfetto_writer__free(r->pw);
	gzout__free(r->gz);
	record__detach(r);
	record__unwatch_exits(r);
	if (r->skel)
		keeper__stop(&r->keeper, bpf_map__fd(r->skel->maps.held));
	sledtrace_bpf__destroy(r->skel);
	object_set__free(r->objs);
	alloc_probes__free(r->allocs);
	capture_set__free(r->capture);
	mapping_watch__free(&r->watch);
	trace_gaps__free(&r->gaps);
	sled_rewrite__free(r->rw);
	targets__close(&r->targets);
	free(r);
}
