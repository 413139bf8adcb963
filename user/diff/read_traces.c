// SPDX-License-Identifier: MIT
/* read_traces.c: reads the traces of `sledtrace diff` in batches, one thread
 * per trace.  Each trace goes through the one reader into its own report
 * (with its caller -> callee edges); a pass-through sink in front of the
 * report keeps what the report does not need: object file names, thread
 * and process names.  Then the batch is handed to the comparison in
 * order, so at most one report per CPU is alive at a time. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff/read_traces.h"
#include "format/perfetto/perfetto_reader.h"

/* One trace: its report, the object file name of each function and the
 * thread or process name of each thread.  The tee_* ops pass every call
 * on to the report, skipping ops the report does not have. */
struct diff_trace {
	struct frame_sink inner;
	char **objects; /* by function id: basename, "" when unknown */
	size_t nobjects;
	char **names; /* by thread index */
	size_t nnames;
	enum diff_group group;
	enum report_times times;
	struct report *r;
};

/* Sets v[i] (growing v) to a copy of s, unless it has one. */
static int put_name(char ***v, size_t *n, size_t i, const char *s)
{
	char **w;

	if (i >= *n) {
		if (!(w = realloc(*v, (i + 1) * 2 * sizeof(*w))))
			return -ENOMEM;
		memset(w + *n, 0, ((i + 1) * 2 - *n) * sizeof(*w));
		*v = w;
		*n = (i + 1) * 2;
	}
	if ((*v)[i])
		return 0;
	return ((*v)[i] = strdup(s)) ? 0 : -ENOMEM;
}

static int tee_function(void *ctx, const struct trace_function *fn)
{
	struct diff_trace *t = ctx;
	const char *slash = fn->object ? strrchr(fn->object, '/') : NULL;
	const char *base = slash ? slash + 1 : fn->object ? fn->object : "";

	if (put_name(&t->objects, &t->nobjects, fn->id, base))
		return -ENOMEM;
	return t->inner.ops->function ? t->inner.ops->function(t->inner.ctx, fn) : 0;
}

static int tee_thread(void *ctx, const struct trace_thread *th)
{
	struct diff_trace *t = ctx;
	const char *n = t->group == DIFF_BY_PROCESS ? th->process_name : th->name;

	if (put_name(&t->names, &t->nnames, th->index, n ? n : "?"))
		return -ENOMEM;
	return t->inner.ops->thread ? t->inner.ops->thread(t->inner.ctx, th) : 0;
}

static int tee_thread_end(void *ctx, const struct trace_thread *th)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->thread_end ? t->inner.ops->thread_end(t->inner.ctx, th) : 0;
}

static int tee_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->enter(t->inner.ctx, th, stack, depth);
}

static int tee_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->leave(t->inner.ctx, th, stack, depth, end_ns, how);
}

static int tee_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		      uint64_t total_ns)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->elided ? t->inner.ops->elided(t->inner.ctx, th, fid, calls, total_ns)
				    : 0;
}

static int tee_stats(void *ctx, const struct trace_stats *st)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->stats ? t->inner.ops->stats(t->inner.ctx, st) : 0;
}

static int tee_finish(void *ctx)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->finish ? t->inner.ops->finish(t->inner.ctx) : 0;
}

static int tee_probe_cost(void *ctx, const struct comp_cost *cost)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->probe_cost(t->inner.ctx, cost);
}

/* Every op but probe_cost, listed once for both tables. */
#define TEE_OPS                                                                                 \
	.function = tee_function, .thread = tee_thread, .enter = tee_enter, .leave = tee_leave, \
	.elided = tee_elided, .stats = tee_stats, .finish = tee_finish,                         \
	.thread_end = tee_thread_end

static const struct frame_sink_ops tee_ops = { TEE_OPS };
/* The same, asking for the probe cost before the calls. */
static const struct frame_sink_ops tee_ops_cost = { TEE_OPS, .probe_cost = tee_probe_cost };

static const char *trace_group(const struct diff_trace *t, uint32_t thread)
{
	return thread && thread - 1 < t->nnames && t->names[thread - 1] ? t->names[thread - 1]
									: "?";
}

static const char *trace_object(const struct diff_trace *t, uint32_t fid)
{
	return fid < t->nobjects && t->objects[fid] ? t->objects[fid] : "";
}

struct job {
	const char *path;
	struct diff_trace *t;
	int rc;
	char err[512];
};

static void *job_run(void *arg)
{
	struct job *j = arg;
	struct diff_trace *t = j->t;
	/* each run compensated with its own trace's probe costs */
	struct report_opts ro = { .by_thread = t->group != DIFF_BY_FUNCTION,
				  .times = t->times,
				  .edges = true };
	struct frame_sink sink = { .ctx = t };

	if ((j->rc = report__new(&ro, &t->r))) {
		snprintf(j->err, sizeof(j->err), "%s: out of memory", j->path);
		return NULL;
	}
	t->inner = report__sink(t->r);
	sink.ops = t->inner.ops->probe_cost ? &tee_ops_cost : &tee_ops;
	j->rc = perfetto_reader__read(j->path, &sink, j->err, sizeof(j->err));
	return NULL;
}

/* How many traces to read at once: the online CPUs, at most 8. */
static size_t parallelism(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 8 ? 8 : (size_t)n;
}

static int run_jobs(struct job *jobs, size_t n)
{
	pthread_t *tids = calloc(n, sizeof(*tids));
	bool *started = calloc(n, sizeof(*started));

	if (!tids || !started) {
		free(tids);
		free(started);
		return -ENOMEM;
	}
	/* The first job runs here; a thread that cannot start runs here too. */
	for (size_t i = 1; i < n; i++)
		started[i] = !pthread_create(&tids[i], NULL, job_run, &jobs[i]);
	for (size_t i = 0; i < n; i++)
		if (!started[i])
			job_run(&jobs[i]);
	for (size_t i = 1; i < n; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	free(tids);
	free(started);
	return 0;
}

/* Reads paths[0..n) concurrently into out[0..n).  Returns 0, or the error
 * of the first failing path (in path order) with one line in err; out[]
 * is filled either way and must be freed. */
static int read_batch(const char *const *paths, size_t n, const struct diff_opts *o,
		      struct diff_trace **out, char *err, size_t errlen)
{
	struct job *jobs = calloc(n ? n : 1, sizeof(*jobs));
	int rc = jobs ? 0 : -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		if (!(out[i] = calloc(1, sizeof(*out[i]))) || !jobs) {
			rc = -ENOMEM;
			continue;
		}
		out[i]->group = o->group;
		out[i]->times = o->times;
		jobs[i] = (struct job){ .path = paths[i], .t = out[i] };
	}
	if (!rc)
		rc = run_jobs(jobs, n);
	if (rc)
		snprintf(err, errlen, "out of memory");
	for (size_t i = 0; i < n && !rc; i++)
		if ((rc = jobs[i].rc))
			snprintf(err, errlen, "%s", jobs[i].err);
	free(jobs);
	return rc;
}

static void trace_free(struct diff_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	for (size_t i = 0; i < t->nobjects; i++)
		free(t->objects[i]);
	free(t->names);
	free(t->objects);
	report__free(t->r);
	free(t);
}

/* ---- into the comparison ---- */

static int fold_rows(struct diff *d, const struct diff_trace *t)
{
	struct report_row row;
	int rc = 0;

	for (size_t i = 0; i < report__nrows(t->r) && !rc; i++) {
		const char *group = NULL, *object;

		report__row(t->r, i, &row);
		object = trace_object(t, row.fid);
		if (t->group != DIFF_BY_FUNCTION)
			group = trace_group(t, row.thread);
		rc = diff__add_function(d, row.name, object, group, &row);
		if (!rc && row.calls)
			rc = diff__add_object(d, object);
	}
	return rc;
}

static int fold_edges(struct diff *d, const struct diff_trace *t)
{
	struct report_edge e;
	int rc = 0;

	for (size_t i = 0; i < report__nedges(t->r) && !rc; i++) {
		report__edge(t->r, i, &e);
		const char *ends[4] = { report__name(t->r, e.caller),
					e.caller ? trace_object(t, e.caller) : "",
					report__name(t->r, e.callee), trace_object(t, e.callee) };

		rc = diff__add_edge(d, ends, &e);
	}
	return rc;
}

static int fold_trace(struct diff *d, enum diff_side side, const char *path,
		      const struct diff_trace *t)
{
	int rc = diff__add_run(d, side, path, report__stats(t->r));

	return rc ? rc : (rc = fold_rows(d, t)) ? rc : fold_edges(d, t);
}

static int read_fold(struct diff *d, const enum diff_side *sides, char *const *paths, size_t n,
		     char *err, size_t errlen)
{
	struct diff_trace **t = calloc(n, sizeof(*t));
	int rc;

	if (!t)
		return -ENOMEM;
	rc = read_batch((const char *const *)paths, n, diff__opts(d), t, err, errlen);
	for (size_t i = 0; i < n && !rc; i++)
		rc = fold_trace(d, sides[i], paths[i], t[i]);
	for (size_t i = 0; i < n; i++)
		trace_free(t[i]);
	free(t);
	return rc;
}

/* One side's calls, costs and call paths, over its runs (diff__set_calls). */
static int set_calls(struct diff *d, enum diff_side side, const struct diff_trace *t)
{
	struct report_row row;
	struct report_edge e;
	int rc = 0;

	for (size_t i = 0; i < report__nrows(t->r) && !rc; i++) {
		report__row(t->r, i, &row);
		rc = diff__set_calls(
			d, side, row.name, trace_object(t, row.fid),
			t->group != DIFF_BY_FUNCTION ? trace_group(t, row.thread) : NULL, &row);
	}
	for (size_t i = 0; i < report__nedges(t->r) && !rc; i++) {
		report__edge(t->r, i, &e);
		const char *ends[4] = { report__name(t->r, e.caller),
					e.caller ? trace_object(t, e.caller) : "",
					report__name(t->r, e.callee), trace_object(t, e.callee) };

		rc = diff__set_edge(d, side, ends, &e);
	}
	return rc;
}

int diff__read_calls(struct diff *d, const char *const paths[2], char *err, size_t errlen)
{
	struct diff_trace *t[2] = { NULL, NULL };
	int rc = read_batch(paths, 2, diff__opts(d), t, err, errlen);

	for (int s = 0; s < 2 && !rc; s++) {
		diff__clear_counts(d, (enum diff_side)s);
		rc = set_calls(d, (enum diff_side)s, t[s]);
	}
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	for (int s = 0; s < 2; s++)
		trace_free(t[s]);
	return rc;
}

int diff__read(struct diff *d, char **const paths[2], const size_t npaths[2], char *err,
	       size_t errlen)
{
	size_t n = npaths[0] + npaths[1], k = 0, batch = parallelism();
	enum diff_side *sides = malloc((n ? n : 1) * sizeof(*sides));
	char **all = malloc((n ? n : 1) * sizeof(*all));
	int rc = 0;

	if (!sides || !all)
		rc = -ENOMEM;
	for (int s = 0; s < 2 && !rc; s++) {
		for (size_t i = 0; i < npaths[s]; i++, k++) {
			sides[k] = (enum diff_side)s;
			all[k] = paths[s][i];
		}
	}
	for (size_t i = 0; i < n && !rc; i += batch)
		rc = read_fold(d, sides + i, all + i, n - i < batch ? n - i : batch, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(sides);
	free(all);
	return rc;
}
