// SPDX-License-Identifier: MIT
/* pola.c: see pola.h.  Frame ids are the model's (frames.h, FRAME_ID: the
 * thread's index and the frame's ordinal on it), so that a cause can name a
 * frame of a thread read later; an exit row repeats its entry's frame_id
 * and parent.  time is ns since the
 * first frame this trace replays (a later-read thread may start earlier:
 * then its times are negative).  Calls a writer elided have no rows: the
 * trace never held their times; they are counted in the symtab's
 * metadata instead (docs/exports.md).  Captured values go to a third
 * file, a row per value, keyed by frame_id. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet.h"
#include "format/pola.h"
#include "model/frame_costs.h"
#include "model/probe_comp.h"
#include "util/u64map.h"

/* sftrace's six columns first and unchanged; probe_ns after them: the
 * probe cost estimated inside an exit row's call (model/probe_comp.h),
 * 0 on entry rows, so that a query of durations can take it out.  Then an
 * entry row's cause: the frame_id of the frame that made it run and the
 * kind (enum frame_cause), both 0 when it has none and on exit rows.
 * Then record --costs's self counts of an exit row's call, a column per
 * enum cost_kind in its order, named as cost_names[] name them: known
 * only when the call ends, as probe_ns is, so 0 on entry rows (and
 * everywhere in a trace recorded without --costs). */
enum {
	C_FRAME,
	C_PARENT,
	C_TID,
	C_FUNC,
	C_TIME,
	C_KIND,
	C_PROBE,
	C_CAUSE,
	C_CAUSE_KIND,
	C_COSTS,
	NCOLS = C_COSTS + COST_NKINDS
};
enum { KIND_ENTRY = 1, KIND_EXIT = 2, KIND_TAIL = 3 };

static const struct parquet_column event_cols[NCOLS] = {
	{ "frame_id", PARQUET_U64 },
	{ "parent", PARQUET_U64 },
	{ "tid", PARQUET_U32 },
	{ "func_id", PARQUET_U64 },
	{ "time", PARQUET_DURATION_NS },
	{ "kind", PARQUET_U32 },
	{ "probe_ns", PARQUET_U64 },
	{ "cause", PARQUET_U64 },
	{ "cause_kind", PARQUET_U32 },
	[C_COSTS + COST_ALLOCS] = { "allocs", PARQUET_U64 },
	[C_COSTS + COST_ALLOC_BYTES] = { "alloc_bytes", PARQUET_U64 },
	[C_COSTS + COST_FREES] = { "frees", PARQUET_U64 },
	[C_COSTS + COST_SYSCALLS] = { "syscalls", PARQUET_U64 },
	[C_COSTS + COST_PAGE_FAULTS] = { "page_faults", PARQUET_U64 },
	[C_COSTS + COST_VOLUNTARY_SWITCHES] = { "voluntary_switches", PARQUET_U64 },
};

/* What record --capture took, a row per value: the frame's id, the
 * parameter's name ("return" for the return value), its kind, its 64
 * bits as taken (0 for text), and how every writer shows it. */
enum { V_FRAME, V_NAME, V_KIND, V_RAW, V_TEXT };
static const struct parquet_column value_cols[] = {
	{ "frame_id", PARQUET_U64 }, { "name", PARQUET_STRING }, { "kind", PARQUET_STRING },
	{ "raw", PARQUET_U64 },	     { "text", PARQUET_STRING },
};
static const char *const kind_names[] = {
	[VALUE_INT] = "int",	     [VALUE_UINT] = "uint", [VALUE_BOOL] = "bool",
	[VALUE_POINTER] = "pointer", [VALUE_TEXT] = "text",
};

static const struct parquet_column symtab_cols[] = {
	{ "func_id", PARQUET_U64 },
	{ "name", PARQUET_STRING },
	{ "path", PARQUET_STRING },
};

struct pola_thread {
	struct comp_depth *probes; /* by depth: the traced calls finished inside */
	uint32_t cap;
};

struct pola {
	struct parquet_writer *ev, *vals;
	FILE *symf;
	struct trace_function *fns; /* by fid; name NULL when unseen */
	uint32_t nfns;
	struct u64map thread_idx;
	struct pola_thread *threads;
	size_t nthreads;
	uint64_t origin;
	bool have_origin;
	struct trace_stats st;
	struct comp_cost cost; /* handed over before the calls (probe_cost) */
	int err;
};

static int pl_function(void *ctx, const struct trace_function *fn)
{
	struct pola *p = ctx;
	struct trace_function *f;

	if (fn->id >= p->nfns) {
		uint32_t n = fn->id + 64;
		struct trace_function *v = realloc(p->fns, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + p->nfns, 0, (n - p->nfns) * sizeof(*v));
		p->fns = v;
		p->nfns = n;
	}
	f = &p->fns[fn->id];
	free((char *)f->name);
	free((char *)f->file);
	*f = *fn;
	f->name = strdup(fn->name ? fn->name : "?");
	f->file = fn->file ? strdup(fn->file) : NULL;
	return f->name && (f->file || !fn->file) ? 0 : -ENOMEM;
}

static struct pola_thread *thread_of(struct pola *p, uint32_t tid, uint32_t depth)
{
	struct pola_thread *t;
	uint64_t idx;

	if (!u64map__get(&p->thread_idx, (uint64_t)tid + 1, &idx)) {
		t = realloc(p->threads, (p->nthreads + 1) * sizeof(*t));
		if (!t)
			return NULL;
		p->threads = t;
		memset(&t[p->nthreads], 0, sizeof(*t));
		if (u64map__put(&p->thread_idx, (uint64_t)tid + 1, p->nthreads))
			return NULL;
		idx = p->nthreads++;
	}
	t = &p->threads[idx];
	if (depth > t->cap) {
		uint32_t cap = t->cap ? t->cap : 64;
		struct comp_depth *pv;

		while (cap < depth)
			cap *= 2;
		if (!(pv = realloc(t->probes, cap * sizeof(*pv))))
			return NULL;
		t->probes = pv;
		t->cap = cap;
	}
	return t;
}

/* An entry row's cause is the frame's; an exit row's costs are. */
static int row(struct pola *p, const struct frame *stack, uint32_t depth, uint32_t tid, uint64_t ns,
	       uint32_t kind, uint64_t probe_ns)
{
	const struct frame *f = &stack[depth - 1];
	bool entry = kind == KIND_ENTRY;
	const struct frame_costs *fc = entry ? NULL : f->costs;

	if (!p->have_origin) {
		p->origin = ns;
		p->have_origin = true;
	}
	parquet_writer__int(p->ev, C_FRAME, f->id);
	parquet_writer__int(p->ev, C_PARENT, depth > 1 ? stack[depth - 2].id : 0);
	parquet_writer__int(p->ev, C_TID, tid);
	parquet_writer__int(p->ev, C_FUNC, f->fid);
	parquet_writer__int(p->ev, C_TIME, ns - p->origin); /* two's complement if earlier */
	parquet_writer__int(p->ev, C_KIND, kind);
	parquet_writer__int(p->ev, C_PROBE, probe_ns);
	parquet_writer__int(p->ev, C_CAUSE, entry ? f->cause : 0);
	parquet_writer__int(p->ev, C_CAUSE_KIND, entry ? (uint32_t)f->cause_kind : 0);
	for (int k = 0; k < COST_NKINDS; k++)
		parquet_writer__int(p->ev, C_COSTS + (uint32_t)k, fc ? fc->self[k] : 0);
	if (!p->err)
		p->err = parquet_writer__end_row(p->ev);
	return p->err;
}

static int value_rows(struct pola *p, uint64_t id, const struct frame_values *fv)
{
	for (uint32_t i = 0; fv && !p->err && i < fv->n; i++) {
		const struct trace_value *v = &fv->v[i];

		parquet_writer__int(p->vals, V_FRAME, id);
		parquet_writer__str(p->vals, V_NAME, v->name);
		parquet_writer__str(p->vals, V_KIND, kind_names[v->kind]);
		parquet_writer__int(p->vals, V_RAW, v->kind == VALUE_TEXT ? 0 : v->raw);
		parquet_writer__str(p->vals, V_TEXT, v->text);
		p->err = parquet_writer__end_row(p->vals);
	}
	return p->err;
}

static int pl_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct pola *p = ctx;
	struct pola_thread *t = thread_of(p, th->tid, depth);

	if (!t)
		return -ENOMEM;
	t->probes[depth - 1] = (struct comp_depth){ 0 };
	return row(p, stack, depth, th->tid, stack[depth - 1].begin_ns, KIND_ENTRY, 0);
}

static int pl_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct pola *p = ctx;
	struct pola_thread *t = thread_of(p, th->tid, depth);
	uint64_t begin = stack[depth - 1].begin_ns, probe, dur;

	if (!t)
		return -ENOMEM;
	probe = comp__in_total(&p->cost, comp__leave(&t->probes[depth - 1],
						     depth > 1 ? &t->probes[depth - 2] : NULL));
	dur = end_ns > begin ? end_ns - begin : 0;
	if (row(p, stack, depth, th->tid, begin + dur, how == FRAME_TAIL ? KIND_TAIL : KIND_EXIT,
		probe < dur ? probe : dur))
		return p->err;
	return value_rows(p, stack[depth - 1].id, stack[depth - 1].values);
}

static int pl_stats(void *ctx, const struct trace_stats *st)
{
	((struct pola *)ctx)->st = *st;
	return 0;
}

static int write_symtab(struct pola *p)
{
	struct parquet_opts o = { .zstd = true };
	struct parquet_writer *w = NULL;
	char path[4096];
	int err = parquet_writer__new(p->symf, symtab_cols, 3, &o, &w);

	for (uint32_t fid = 1; !err && fid < p->nfns; fid++) {
		const struct trace_function *fn = &p->fns[fid];

		if (!fn->name)
			continue;
		if (fn->file)
			snprintf(path, sizeof(path), "%s:%u", fn->file, fn->line);
		else
			path[0] = '\0';
		parquet_writer__int(w, 0, fid);
		parquet_writer__str(w, 1, fn->name);
		parquet_writer__str(w, 2, path);
		err = parquet_writer__end_row(w);
	}
	if (!err)
		err = parquet_writer__finish(w);
	parquet_writer__free(w);
	return err;
}

static int pl_finish(void *ctx)
{
	struct pola *p = ctx;

	if (!p->err)
		p->err = parquet_writer__finish(p->ev);
	if (!p->err)
		p->err = parquet_writer__finish(p->vals);
	if (!p->err)
		p->err = write_symtab(p);
	return p->err;
}

static int pl_probe_cost(void *ctx, const struct comp_cost *cost)
{
	((struct pola *)ctx)->cost = *cost;
	return 0;
}

static const struct frame_sink_ops pl_ops = {
	.function = pl_function,
	.enter = pl_enter,
	.leave = pl_leave,
	.stats = pl_stats,
	.finish = pl_finish,
	.probe_cost = pl_probe_cost,
};

int pola__new(FILE *events, FILE *symtab, FILE *values, struct pola **out)
{
	struct parquet_opts o = { .zstd = true };
	struct pola *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return -ENOMEM;
	p->symf = symtab;
	err = parquet_writer__new(events, event_cols, NCOLS, &o, &p->ev);
	if (!err)
		err = parquet_writer__new(values, value_cols, 5, &o, &p->vals);
	if (err) {
		pola__free(p);
		return err;
	}
	*out = p;
	return 0;
}

struct frame_sink pola__sink(struct pola *p)
{
	return (struct frame_sink){ .ops = &pl_ops, .ctx = p };
}

int pola__error(const struct pola *p)
{
	return p->err;
}

const struct trace_stats *pola__stats(const struct pola *p)
{
	return &p->st;
}

void pola__free(struct pola *p)
{
	if (!p)
		return;
	parquet_writer__free(p->ev);
	parquet_writer__free(p->vals);
	for (uint32_t i = 0; i < p->nfns; i++) {
		free((char *)p->fns[i].name);
		free((char *)p->fns[i].file);
	}
	for (size_t i = 0; i < p->nthreads; i++) {
		free(p->threads[i].probes);
	}
	free(p->fns);
	free(p->threads);
	u64map__clear(&p->thread_idx);
	free(p);
}
