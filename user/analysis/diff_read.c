// SPDX-License-Identifier: MIT
/* diff_read.c: reads the traces of one `sledtrace diff` batch in parallel,
 * one thread per trace.  Each trace goes through the one reader into its
 * own report; a pass-through sink in front of the report keeps the thread
 * and process names, which the report does not need. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/diff_read.h"
#include "format/perfetto_reader.h"
#include "util/u64map.h"

/* One trace: its report, and thread or process names by tid. */
struct diff_trace {
	struct frame_sink inner;
	struct u64map tid_names; /* 1 + thread index -> 1 + index in names */
	char **names;
	size_t nnames;
	enum diff_group group;
	struct report *r;
};

static int tee_function(void *ctx, const struct trace_function *fn)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->function(t->inner.ctx, fn);
}

static int tee_thread(void *ctx, const struct trace_thread *th)
{
	struct diff_trace *t = ctx;
	const char *n = t->group == DIFF_BY_PROCESS ? th->process_name : th->name;
	char **v = realloc(t->names, (t->nnames + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->names = v;
	if (!(v[t->nnames] = strdup(n ? n : "?")))
		return -ENOMEM;
	t->nnames++;
	if (u64map__put(&t->tid_names, (uint64_t)th->index + 1, t->nnames))
		return -ENOMEM;
	return t->inner.ops->thread ? t->inner.ops->thread(t->inner.ctx, th) : 0;
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

	return t->inner.ops->elided(t->inner.ctx, th, fid, calls, total_ns);
}

static int tee_stats(void *ctx, const struct trace_stats *st)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->stats(t->inner.ctx, st);
}

static int tee_finish(void *ctx)
{
	struct diff_trace *t = ctx;

	return t->inner.ops->finish(t->inner.ctx);
}

static const struct frame_sink_ops tee_ops = {
	.function = tee_function,
	.thread = tee_thread,
	.enter = tee_enter,
	.leave = tee_leave,
	.elided = tee_elided,
	.stats = tee_stats,
	.finish = tee_finish,
};

const char *diff_trace__group(const struct diff_trace *t, uint32_t thread)
{
	uint64_t idx;

	return u64map__get(&t->tid_names, thread, &idx) ? t->names[idx - 1] : "?";
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
	struct report_opts ro = { .by_thread = t->group != DIFF_BY_FUNCTION };
	struct frame_sink sink = { .ops = &tee_ops, .ctx = t };

	if ((j->rc = report__new(&ro, &t->r))) {
		snprintf(j->err, sizeof(j->err), "%s: out of memory", j->path);
		return NULL;
	}
	t->inner = report__sink(t->r);
	j->rc = perfetto_reader__read(j->path, &sink, j->err, sizeof(j->err));
	return NULL;
}

size_t diff_trace__parallelism(void)
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

int diff_trace__read_batch(const char *const *paths, size_t n, enum diff_group group,
			   struct diff_trace **out, char *err, size_t errlen)
{
	struct job *jobs = calloc(n ? n : 1, sizeof(*jobs));
	int rc = jobs ? 0 : -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		if (!(out[i] = calloc(1, sizeof(*out[i]))) || !jobs) {
			rc = -ENOMEM;
			continue;
		}
		out[i]->group = group;
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

const struct report *diff_trace__report(const struct diff_trace *t)
{
	return t->r;
}

void diff_trace__free(struct diff_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nnames; i++)
		free(t->names[i]);
	free(t->names);
	u64map__clear(&t->tid_names);
	report__free(t->r);
	free(t);
}
