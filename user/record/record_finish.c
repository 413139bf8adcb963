// SPDX-License-Identifier: MIT
/* record_finish.c: the end of a recording (record.h): the BPF side's
 * counters and the coverage gaps into the trace, the trace committed, and
 * what the user is told of it: warnings, the summary, --strict. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "record/bpf_counters.h"
#include "record/probe_note.h"
#include "record/record_int.h"
#include "sledtrace.h"
#include "sledtrace.skel.h"

/* What the kernel could not record, and what holding processes cost. */
static void say_losses(struct record *r, const struct bpf_counters *ctr)
{
	const struct mapping_watch *w = &r->watch;
	uint64_t idents = ctr->n[SLED_CTR_LOST_IDENT];
	const struct collector_names *names = collector__names(r->col);

	bpf_counters__warn(ctr);
	if (r->opts->nunder && !object_set__gates(r->objs))
		fprintf(stderr,
			"sledtrace: warning: --under matched no traced function: "
			"every call was left out\n");
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

/* --strict: an inexact trace is an error. */
static int strict_status(struct record *r, const struct trace_stats *st,
			 const struct bpf_counters *ctr)
{
	uint64_t n = trace_stats__ring_lost(st) + st->coverage_gaps + bpf_counters__inexact(ctr);

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
	struct bpf_counters ctr;
	uint64_t leaf;
	char err[512];
	int ret;

	bpf_counters__read(&ctr, bpf_map__fd(r->skel->maps.counters));
	bpf_counters__to_stats(&ctr, &st);
	st.no_sched = r->opts->no_sched;
	st.no_causes = r->opts->no_causes;
	st.costs = r->opts->costs;
	st.probe_entry_ns = r->calib.entry_ns;
	st.probe_exit_ns = r->calib.exit_ns;
	st.budget_ppm = (uint64_t)(r->opts->budget * 1e6 + 0.5);
	st.budget_unprobed = object_set__unprobed(r->objs);
	st.program_cpu_ns = r->targets.n ? targets__cpu_ns(&r->targets) - r->targets_cpu_ns
					 : r->child.cpu_ns;
	st.untraced_cpu_ns = r->opts->untraced_cpu_ns;
	/* the shortest leaf call the kernel's filter left out, 0: none */
	leaf = bpf_counters__least(bpf_map__fd(r->skel->maps.kf_leaf_min), 0);
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
	say_losses(r, &ctr);
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
	return strict_status(r, &st, &ctr);
}
