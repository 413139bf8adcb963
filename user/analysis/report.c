// SPDX-License-Identifier: MIT
/* report.c: the per-function aggregation behind `sledtrace report`.
 *
 * calls: every frame, plus calls a writer elided (beyond its depth cap).
 * total: inclusive time, counted once per outermost activation on a
 *        thread, so recursion is not counted twice (total <= wall time).
 * self:  inclusive time minus the inclusive time of direct children.
 * Elided calls add to calls only: their time is already inside their
 * recorded ancestors and cannot be split into self and nested time. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report.h"
#include "model/thread_slots.h"
#include "model/trace_stats.h"
#include "util/u64map.h"

/* A row is one function, or one function on one thread (--by-thread:
 * keyed by thread index, so a reused tid is a row of its own). */
struct row {
	uint32_t thread, tid, fid;
	uint64_t calls, total, self;
};

/* Per traced thread: what a leave needs to split time. */
struct rthread {
	uint64_t *child;  /* by depth: inclusive time of finished children */
	uint32_t *active; /* by fid: open activations */
	size_t nchild, nactive;
};

struct report {
	struct report_opts o;
	char **names; /* by fid */
	size_t nnames;
	struct row *rows;
	size_t nrows;
	struct u64map row_idx;
	struct thread_slots threads; /* struct rthread by thread index */
	struct trace_stats st;
};

static int grow(void **p, size_t *n, size_t need, size_t size)
{
	size_t m = *n ? *n : 16;
	void *q;

	if (need <= *n)
		return 0;
	while (m < need)
		m *= 2;
	if (!(q = realloc(*p, m * size)))
		return -ENOMEM;
	memset((char *)q + *n * size, 0, (m - *n) * size);
	*p = q;
	*n = m;
	return 0;
}

static int rp_function(void *ctx, const struct trace_function *fn)
{
	struct report *r = ctx;

	if (grow((void **)&r->names, &r->nnames, (size_t)fn->id + 1, sizeof(*r->names)))
		return -ENOMEM;
	if (r->names[fn->id])
		return 0;
	return (r->names[fn->id] = strdup(fn->name)) ? 0 : -ENOMEM;
}

static void thread_release(void *slot)
{
	struct rthread *t = slot;

	free(t->child);
	free(t->active);
}

static struct row *row_of(struct report *r, const struct trace_thread *th, uint32_t fid)
{
	uint32_t thread = r->o.by_thread ? th->index + 1 : 0;
	uint64_t key = ((uint64_t)thread << 32) | fid, idx;
	struct row *v;

	if (u64map__get(&r->row_idx, key, &idx))
		return &r->rows[idx];
	if (!(v = realloc(r->rows, (r->nrows + 1) * sizeof(*v))))
		return NULL;
	r->rows = v;
	if (u64map__put(&r->row_idx, key, r->nrows))
		return NULL;
	v[r->nrows] =
		(struct row){ .thread = thread, .tid = r->o.by_thread ? th->tid : 0, .fid = fid };
	return &v[r->nrows++];
}

static int rp_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct report *r = ctx;
	struct rthread *t = thread_slots__get(&r->threads, th);
	uint32_t fid = stack[depth - 1].fid;

	if (!t || grow((void **)&t->child, &t->nchild, depth, sizeof(*t->child)) ||
	    grow((void **)&t->active, &t->nactive, (size_t)fid + 1, sizeof(*t->active)))
		return -ENOMEM;
	t->child[depth - 1] = 0;
	t->active[fid]++;
	return 0;
}

static int rp_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct report *r = ctx;
	struct rthread *t = thread_slots__peek(&r->threads, th->index);
	const struct frame *f = &stack[depth - 1];
	uint64_t dur = end_ns > f->begin_ns ? end_ns - f->begin_ns : 0;
	struct row *row = row_of(r, th, f->fid);

	(void)how;
	if (!t || !row || depth > t->nchild || f->fid >= t->nactive)
		return -ENOMEM;
	row->calls++;
	row->self += dur - (t->child[depth - 1] < dur ? t->child[depth - 1] : dur);
	if (depth > 1)
		t->child[depth - 2] += dur;
	if (t->active[f->fid] && !--t->active[f->fid])
		row->total += dur;
	return 0;
}

static int rp_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct row *row = row_of(ctx, th, fid);

	(void)total_ns;
	if (!row)
		return -ENOMEM;
	row->calls += calls;
	return 0;
}

static int rp_stats(void *ctx, const struct trace_stats *st)
{
	((struct report *)ctx)->st = *st;
	return 0;
}

static int rp_finish(void *ctx)
{
	(void)ctx;
	return 0;
}

static int rp_thread_end(void *ctx, const struct trace_thread *th)
{
	thread_slots__put(&((struct report *)ctx)->threads, th);
	return 0;
}

static const struct frame_sink_ops rp_ops = {
	.function = rp_function,
	.enter = rp_enter,
	.leave = rp_leave,
	.elided = rp_elided,
	.stats = rp_stats,
	.finish = rp_finish,
	.thread_end = rp_thread_end,
};

struct frame_sink report__sink(struct report *r)
{
	return (struct frame_sink){ .ops = &rp_ops, .ctx = r };
}

int report__new(const struct report_opts *opts, struct report **out)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->o = *opts;
	thread_slots__init(&r->threads, sizeof(struct rthread), thread_release);
	*out = r;
	return 0;
}

static const char *name_of(const struct report *r, uint32_t fid)
{
	return fid < r->nnames && r->names[fid] ? r->names[fid] : "[unknown]";
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct report *r = ctx;
	const struct row *a = *(const struct row *const *)pa, *b = *(const struct row *const *)pb;
	int c = 0;

	switch (r->o.sort) {
	case REPORT_SORT_CALLS:
		c = cmp_u64_desc(a->calls, b->calls);
		break;
	case REPORT_SORT_TOTAL:
		c = cmp_u64_desc(a->total, b->total);
		break;
	case REPORT_SORT_SELF:
		c = cmp_u64_desc(a->self, b->self);
		break;
	case REPORT_SORT_NAME:
		break;
	}
	if (!c)
		c = strcmp(name_of(r, a->fid), name_of(r, b->fid));
	if (!c)
		c = (a->tid > b->tid) - (a->tid < b->tid);
	return c ? c : (a->thread > b->thread) - (a->thread < b->thread);
}

static const char *human_ns(char *buf, size_t n, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, n, "%.3fus", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.3fms", ns / 1e6);
	else
		snprintf(buf, n, "%.3fs", ns / 1e9);
	return buf;
}

static void print_row(const struct report *r, const struct row *row, FILE *f)
{
	char tid[16] = "*", t1[32], t2[32];

	if (r->o.by_thread)
		snprintf(tid, sizeof(tid), "%u", row->tid);
	if (r->o.format == REPORT_TSV) {
		fprintf(f, "%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", tid,
			name_of(r, row->fid), row->calls, row->total, row->self);
		return;
	}
	if (r->o.by_thread)
		fprintf(f, "%8s  ", tid);
	fprintf(f, "%12" PRIu64 " %14s %14s  %s\n", row->calls,
		human_ns(t1, sizeof(t1), row->total), human_ns(t2, sizeof(t2), row->self),
		name_of(r, row->fid));
}

static void print_stats(const struct report *r, FILE *f)
{
	fprintf(f, "\nstats:");
	for (size_t i = 0; i < trace_stat_nfields; i++)
		fprintf(f, " %s=%" PRIu64, trace_stat_fields[i].name, trace_stats__get(&r->st, i));
	fprintf(f, "\n");
}

int report__print(struct report *r, FILE *f)
{
	const struct row **v = malloc((r->nrows ? r->nrows : 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nrows; i++)
		v[i] = &r->rows[i];
	qsort_r(v, r->nrows, sizeof(*v), cmp_rows, r);
	if (r->o.format == REPORT_TSV) {
		fprintf(f, "tid\tfunction\tcalls\ttotal_ns\tself_ns\n");
	} else {
		if (r->o.by_thread)
			fprintf(f, "%8s  ", "TID");
		fprintf(f, "%12s %14s %14s  %s\n", "CALLS", "TOTAL", "SELF", "FUNCTION");
	}
	for (size_t i = 0; i < r->nrows; i++)
		print_row(r, v[i], f);
	if (r->o.format == REPORT_TABLE)
		print_stats(r, f);
	free(v);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->rows);
	u64map__clear(&r->row_idx);
	thread_slots__clear(&r->threads);
	free(r);
}
