// SPDX-License-Identifier: MIT
/* report.c: the aggregation behind `sledtrace report` (report_print.c
 * prints it).
 *
 * Every time column is made of one figure per call: its inclusive
 * duration, less (compensated times) the probe cost estimated inside it,
 * clamped at 0 (model/probe_comp.h); and likewise its self time.  The
 * trace reader hands the costs over before the first call
 * (frame_sink_ops.probe_cost), so each call is compensated as it ends;
 * raw or compensated, the cost taken out (or that would be) is summed per
 * row too (probe, probe_self: the labels of times mostly probe cost).
 * calls: every frame, plus calls a writer elided (beyond its depth cap).
 * total: the calls' figures, counted once per outermost activation on a
 *        thread, so recursion is not counted twice (total <= wall time).
 * self:  the calls' self figures (inclusive time less the inclusive time
 *        of direct children, less the hits in self).
 * avg:   total / calls, so that the columns add up.
 * min/max, p50/p99: over each call's figure; percentiles from a
 *        log-bucketed histogram (histogram.h: within 6.25%).
 * cpu total and self: the same as total and self, of each call's on-CPU
 *        time (struct frame.cpu_ns, from the scheduler's switches), with
 *        the same probe hits taken out: a probe runs on the CPU.  Without
 *        switches a thread is always running and they equal total and
 *        self.
 * Elided calls add to calls only: their time is already inside their
 * recorded ancestors and cannot be split into self and nested time.
 * Edges (caller -> callee, for --callers/--callees and diff) are kept
 * only when asked for.  Rows per thread or process are keyed by the model's thread
 * or process index, so a reused tid is a row of its own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_int.h"
#include "model/probe_comp.h"
#include "model/thread_slots.h"

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

/* 0, or thread/process index + 1. */
static uint32_t group_of(const struct report *r, const struct trace_thread *th)
{
	return r->o.by_thread ? th->index + 1 : r->o.by_process ? th->process_index + 1 : 0;
}

static int rp_thread(void *ctx, const struct trace_thread *th)
{
	struct report *r = ctx;
	uint32_t id = group_of(r, th);
	struct rgroup *g;

	if (!id || u64map__find(&r->group_idx, id))
		return 0;
	g = realloc(r->groups, (r->ngroups + 1) * sizeof(*g));
	if (!g)
		return -ENOMEM;
	r->groups = g;
	g = &g[r->ngroups];
	g->pid = th->pid;
	g->tid = th->tid;
	g->name = strdup(th->name ? th->name : "");
	g->process = strdup(th->process_name ? th->process_name : "");
	if (!g->name || !g->process || u64map__put(&r->group_idx, id, r->ngroups)) {
		free(g->name);
		free(g->process);
		return -ENOMEM;
	}
	r->ngroups++;
	return 0;
}

static void thread_release(void *slot)
{
	struct rthread *t = slot;

	free(t->at);
	free(t->active);
}

static struct row *row_of(struct report *r, uint32_t group, uint32_t fid)
{
	uint64_t key = ((uint64_t)group << 32) | fid, idx;
	struct row *row;

	if (u64map__get(&r->row_idx, key, &idx))
		return &r->rows[idx];
	if (grow((void **)&r->rows, &r->caprows, r->nrows + 1, sizeof(*r->rows)) ||
	    u64map__put(&r->row_idx, key, r->nrows))
		return NULL;
	row = &r->rows[r->nrows++];
	*row = (struct row){ .group = group, .fid = fid, .min = UINT64_MAX };
	return row;
}

/* One more call over caller -> callee, of dur, having spent costs (NULL:
 * nothing counted) with its callees. */
static int add_edge(struct report *r, uint32_t caller, uint32_t callee, uint64_t dur,
		    const struct frame_costs *costs)
{
	uint64_t key = ((uint64_t)caller << 32 | callee) + 1, idx;

	if (!u64map__get(&r->edge_idx, key, &idx)) {
		if (grow((void **)&r->edges, &r->capedges, r->nedges + 1, sizeof(*r->edges)) ||
		    u64map__put(&r->edge_idx, key, r->nedges))
			return -ENOMEM;
		idx = r->nedges++;
		r->edges[idx] = (struct edge){ .caller = caller, .callee = callee };
	}
	r->edges[idx].calls++;
	r->edges[idx].dur_sum += dur;
	for (int k = 0; costs && k < COST_NKINDS; k++)
		r->edges[idx].cost_total[k] += costs->total[k];
	return 0;
}

static int rp_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct report *r = ctx;
	struct rthread *t = thread_slots__get(&r->threads, th);
	uint32_t fid = stack[depth - 1].fid;

	if (!t)
		return -ENOMEM;
	if (grow((void **)&t->at, &t->ndepth, depth, sizeof(*t->at)) ||
	    grow((void **)&t->active, &t->nactive, (size_t)fid + 1, sizeof(*t->active)))
		return -ENOMEM;
	t->at[depth - 1] = (struct rdepth){ 0 };
	t->active[fid]++;
	return 0;
}

static void measure(struct row *row, uint64_t dur)
{
	row->measured++;
	row->min = dur < row->min ? dur : row->min;
	row->max = dur > row->max ? dur : row->max;
	if (row->hist)
		histogram__add(row->hist, dur);
}

/* A call's figures of one kind of time (wall or on-CPU): raw, or less
 * the probe cost estimated inside them; probe, probe_self that cost. */
struct split {
	uint64_t all, self, probe, probe_self;
};

/* own: the call's inclusive time; children: its direct children's, which
 * clocks that disagree a little could make exceed it. */
static struct split split_of(const struct report *r, uint64_t own, uint64_t children,
			     struct comp_frame cf)
{
	uint64_t child = children < own ? children : own, self = own - child;
	uint64_t in_all = comp__in_total(&r->cost, cf), in_self = comp__in_self(&r->cost, cf);
	struct split s = { own, self, in_all < own ? in_all : own,
			   in_self < self ? in_self : self };

	if (r->o.times == REPORT_TIMES_COMPENSATED) {
		s.all -= s.probe;
		s.self -= s.probe_self;
	}
	return s;
}

/* A call's costs (record --costs); outer: no activation of its function
 * is open below it, so its inclusive counts are not in another's. */
static int add_costs(struct row *row, const struct frame_costs *c, bool outer)
{
	for (int k = 0; k < COST_NKINDS; k++) {
		row->cost_self[k] += c->self[k];
		if (outer)
			row->cost_total[k] += c->total[k];
	}
	for (uint32_t i = 0; i < c->nsyscalls; i++)
		if (cost_syscalls__add(&row->sys, &row->nsys, &row->capsys, c->syscalls[i].nr,
				       c->syscalls[i].count))
			return -ENOMEM;
	return 0;
}

static int rp_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct report *r = ctx;
	struct rthread *t = thread_slots__peek(&r->threads, th->index);
	const struct frame *f = &stack[depth - 1];
	uint64_t dur = end_ns > f->begin_ns ? end_ns - f->begin_ns : 0;
	struct row *row = row_of(r, group_of(r, th), f->fid);
	struct rdepth *d, *up;
	struct split wall, cpu;
	struct comp_frame cf;
	bool outer;

	(void)how;
	if (!t || !row || depth > t->ndepth || f->fid >= t->nactive)
		return -ENOMEM;
	d = &t->at[depth - 1];
	up = depth > 1 ? d - 1 : NULL;
	cf = comp__leave(&d->probes, up ? &up->probes : NULL);
	if (!row->hist && !(row->hist = calloc(1, sizeof(*row->hist))))
		return -ENOMEM;
	wall = split_of(r, dur, d->child, cf);
	cpu = split_of(r, f->cpu_ns, d->cpu_child, cf);
	row->calls++;
	row->self += wall.self;
	row->probe_self += wall.probe_self;
	row->cpu_self += cpu.self;
	measure(row, wall.all);
	if (up) {
		up->child += dur;
		up->cpu_child += f->cpu_ns;
	} else {
		r->root_raw += dur;
		r->root_probe += wall.probe;
	}
	outer = t->active[f->fid] && !--t->active[f->fid];
	if (f->costs && add_costs(row, f->costs, outer))
		return -ENOMEM;
	if (outer) {
		row->total += wall.all;
		row->probe += wall.probe;
		row->cpu_probe += cpu.probe;
		row->cpu_total += cpu.all;
	}
	if ((r->o.callers || r->o.callees || r->o.edges) &&
	    add_edge(r, up ? stack[depth - 2].fid : 0, f->fid, wall.all, f->costs))
		return -ENOMEM;
	if (f->values && f->values->n && report_values__add(&r->values, f->fid, f->values))
		return -ENOMEM;
	return 0;
}

static int rp_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct report *r = ctx;
	struct row *row = row_of(r, group_of(r, th), fid);

	(void)total_ns;
	if (!row)
		return -ENOMEM;
	row->calls += calls;
	row->elided += calls;
	return 0;
}

static int rp_thread_end(void *ctx, const struct trace_thread *th)
{
	thread_slots__put(&((struct report *)ctx)->threads, th);
	return 0;
}

static int rp_probe_cost(void *ctx, const struct comp_cost *cost)
{
	struct report *r = ctx;

	r->cost = *cost;
	r->cost_known = true;
	return 0;
}

/* The costs the calls were measured with must be the ones the trace's
 * stats end with: a reader that handed over others is a bug to see. */
static int rp_stats(void *ctx, const struct trace_stats *st)
{
	struct report *r = ctx;
	struct comp_cost c = comp__costs(st->probe_cost_ns, st->probe_entry_ns, st->probe_exit_ns);

	r->st = *st;
	if (r->cost_known ? !comp__same(&r->cost, &c) : r->o.times == REPORT_TIMES_COMPENSATED)
		return -EPROTO;
	return 0;
}

static int rp_gap(void *ctx, const struct trace_gap *g)
{
	return trace_gaps__add(&((struct report *)ctx)->gaps, g);
}

double report__probe_share(const struct report *r)
{
	return r->root_raw ? (double)r->root_probe / (double)r->root_raw : 0;
}

const char *const report_times_names[] = {
	[REPORT_TIMES_RAW] = COMP_TIMES_RAW,
	[REPORT_TIMES_COMPENSATED] = COMP_TIMES_COMPENSATED,
	NULL,
};

const char *report__times_name(enum report_times t)
{
	return comp__times_name(t == REPORT_TIMES_COMPENSATED);
}

/* Raw or compensated, the report asks for the probe cost before the
 * calls: every row shows how much of its raw time the probes took. */
static const struct frame_sink_ops rp_ops = {
	.function = rp_function,
	.thread = rp_thread,
	.enter = rp_enter,
	.leave = rp_leave,
	.elided = rp_elided,
	.stats = rp_stats,
	.gap = rp_gap,
	.thread_end = rp_thread_end,
	.probe_cost = rp_probe_cost,
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
	if (opts->function) {
		if (regcomp(&r->re, opts->function, REG_EXTENDED | REG_NOSUB)) {
			free(r);
			return -EINVAL;
		}
		r->have_re = true;
	}
	*out = r;
	return 0;
}

const char *report__name(const struct report *r, uint32_t fid)
{
	if (!fid)
		return "[root]";
	return fid < r->nnames && r->names[fid] ? r->names[fid] : "[unknown]";
}

const struct rgroup *report__group(const struct report *r, uint32_t id)
{
	uint64_t idx;

	return id && u64map__get(&r->group_idx, id, &idx) ? &r->groups[idx] : NULL;
}

size_t report__nrows(const struct report *r)
{
	return r->nrows;
}

void report__row(const struct report *r, size_t i, struct report_row *out)
{
	const struct row *row = &r->rows[i];

	*out = (struct report_row){ .thread = row->group,
				    .fid = row->fid,
				    .name = report__name(r, row->fid),
				    .calls = row->calls,
				    .total_ns = row->total,
				    .self_ns = row->self,
				    .cpu_total_ns = row->cpu_total,
				    .cpu_self_ns = row->cpu_self,
				    .probe_ns = row->probe };
	memcpy(out->cost_self, row->cost_self, sizeof(out->cost_self));
	memcpy(out->cost_total, row->cost_total, sizeof(out->cost_total));
}

size_t report__nedges(const struct report *r)
{
	return r->nedges;
}

void report__edge(const struct report *r, size_t i, struct report_edge *out)
{
	const struct edge *e = &r->edges[i];

	*out = (struct report_edge){ .caller = e->caller, .callee = e->callee, .calls = e->calls };
	memcpy(out->cost_total, e->cost_total, sizeof(out->cost_total));
}

const struct trace_stats *report__stats(const struct report *r)
{
	return &r->st;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].hist);
		free(r->rows[i].sys);
	}
	for (size_t i = 0; i < r->ngroups; i++) {
		free(r->groups[i].name);
		free(r->groups[i].process);
	}
	trace_gaps__free(&r->gaps);
	report_values__free(&r->values);
	if (r->have_re)
		regfree(&r->re);
	free(r->names);
	free(r->rows);
	free(r->edges);
	free(r->groups);
	thread_slots__clear(&r->threads);
	u64map__clear(&r->row_idx);
	u64map__clear(&r->edge_idx);
	u64map__clear(&r->group_idx);
	free(r);
}
