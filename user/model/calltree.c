// SPDX-License-Identifier: MIT
/* calltree.c: see calltree.h.  Each thread keeps, per open frame, the node
 * of its path and the time its callees took, so self time is exact.  That
 * state lives in a thread slot and goes when the thread ends; what a
 * converter needs afterwards (the thread's names, its root node) is kept
 * per thread index for the life of the tree. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "model/probe_comp.h"
#include "model/thread_slots.h"
#include "util/u64map.h"

struct ct_thread {
	uint32_t *node; /* per depth */
	uint64_t *child_ns;
	struct comp_depth *probes; /* per depth: probe hits of finished children */
	uint32_t cap;
};

/* A thread as converters see it, by thread index. */
struct ct_info {
	struct trace_thread info; /* names owned; NULL name: index not seen */
	uint32_t root;		  /* the thread's root node (0 unless by_thread) */
};

struct calltree {
	struct calltree_node *nodes;
	size_t n, cap;
	/* by node, cap of them once the first frame with costs ended */
	uint64_t (*costs)[COST_NKINDS];
	struct u64map children;	     /* (parent << 32 | fid) + 1 -> node */
	struct thread_slots threads; /* struct ct_thread by thread index */
	struct ct_info *infos;	     /* by thread index */
	uint32_t ninfos;
	struct trace_function *fns; /* by fid; name NULL when not announced */
	uint32_t nfns;
	struct trace_stats st;
	bool by_thread, compensated, cost_known;
	struct comp_cost cost; /* handed over before the calls */
	uint64_t first_ns, last_ns;
	const struct stitch *stitch; /* calltree__stitch */
	struct u64map stitched;	     /* causing frame id -> its stitched node */
};

/* A chain of causes longer than this is cut there (it would come from a
 * trace whose causes loop, which time order forbids). */
#define STITCH_HOPS 256

static int child_of(struct calltree *ct, uint32_t parent, uint32_t fid, uint32_t *out)
{
	uint64_t key = ((uint64_t)parent << 32 | fid) + 1, idx;

	if (u64map__get(&ct->children, key, &idx)) {
		*out = (uint32_t)idx;
		return 0;
	}
	if (ct->n == ct->cap) {
		size_t cap = ct->cap * 2;
		struct calltree_node *v = realloc(ct->nodes, cap * sizeof(*v));
		uint64_t(*c)[COST_NKINDS];

		if (!v)
			return -ENOMEM;
		ct->nodes = v;
		if (ct->costs) {
			if (!(c = realloc(ct->costs, cap * sizeof(*c))))
				return -ENOMEM;
			memset(c + ct->cap, 0, (cap - ct->cap) * sizeof(*c));
			ct->costs = c;
		}
		ct->cap = cap;
	}
	ct->nodes[ct->n] = (struct calltree_node){ .parent = parent, .fid = fid };
	*out = (uint32_t)ct->n;
	return u64map__put(&ct->children, key, ct->n++);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void free_info(struct trace_thread *t)
{
	free((char *)t->name);
	free((char *)t->process_name);
	free((char *)t->cmdline);
}

/* th's info record, made on first sight of its index. */
static struct ct_info *info_of(struct calltree *ct, const struct trace_thread *th)
{
	struct ct_info *ci;

	if (th->index >= ct->ninfos) {
		uint32_t n = th->index + 16;

		if (!(ci = realloc(ct->infos, n * sizeof(*ci))))
			return NULL;
		memset(ci + ct->ninfos, 0, (n - ct->ninfos) * sizeof(*ci));
		ct->infos = ci;
		ct->ninfos = n;
	}
	ci = &ct->infos[th->index];
	if (ci->info.name)
		return ci;
	ci->info = *th;
	ci->info.name = strdup(th->name ? th->name : "");
	ci->info.process_name = strdup(th->process_name ? th->process_name : "");
	ci->info.cmdline = dup_or_null(th->cmdline);
	if (!ci->info.name || !ci->info.process_name || (th->cmdline && !ci->info.cmdline) ||
	    (ct->by_thread && child_of(ct, 0, CALLTREE_THREAD_ROOT | th->index, &ci->root))) {
		free_info(&ci->info);
		ci->info.name = NULL;
		return NULL;
	}
	return ci;
}

static struct ct_thread *thread_of(struct calltree *ct, const struct trace_thread *th)
{
	return thread_slots__get(&ct->threads, th);
}

static void thread_release(void *slot)
{
	struct ct_thread *t = slot;

	free(t->node);
	free(t->child_ns);
	free(t->probes);
}

static int reserve(struct ct_thread *t, uint32_t depth)
{
	uint32_t cap = t->cap ? t->cap : 64;
	struct comp_depth *probes;
	uint32_t *node;
	uint64_t *ns;

	if (depth <= t->cap)
		return 0;
	while (cap < depth)
		cap *= 2;
	node = realloc(t->node, cap * sizeof(*node));
	if (!node)
		return -ENOMEM;
	t->node = node;
	ns = realloc(t->child_ns, cap * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	t->child_ns = ns;
	probes = realloc(t->probes, cap * sizeof(*probes));
	if (!probes)
		return -ENOMEM;
	t->probes = probes;
	t->cap = cap;
	return 0;
}

static void see_time(struct calltree *ct, uint64_t ns)
{
	if (!ct->first_ns || ns < ct->first_ns)
		ct->first_ns = ns;
	if (ns > ct->last_ns)
		ct->last_ns = ns;
}

/* A call's time on its path: raw, or less the probe cost estimated
 * inside it (probe: comp__in_total or comp__in_self), clamped at 0 per
 * call as the report does. */
static uint64_t figure(const struct calltree *ct, uint64_t raw, uint64_t probe)
{
	return ct->compensated ? comp__sub(raw, probe) : raw;
}

void calltree__stitch(struct calltree *ct, const struct stitch *s)
{
	ct->stitch = s;
}

static uint32_t thread_root(struct calltree *ct, uint32_t index, int *err)
{
	uint32_t node = 0;

	/* the key info_of gives it, whichever thread is read first */
	if (ct->by_thread)
		*err = child_of(ct, 0, CALLTREE_THREAD_ROOT | index, &node);
	return node;
}

/* The node of the causing frame id's stitched path, made on first use;
 * *node stays unset when the first read saw no link for it. */
static int stitched_node(struct calltree *ct, uint64_t id, unsigned hops, uint32_t *node)
{
	const struct stitch_link *l = stitch__link(ct->stitch, id);
	uint64_t memo;
	uint32_t at;
	int err = 0;

	if (u64map__get(&ct->stitched, id, &memo)) {
		*node = (uint32_t)memo;
		return 0;
	}
	if (!l)
		return 0;
	at = UINT32_MAX;
	if (l->cause && hops < STITCH_HOPS && (err = stitched_node(ct, l->cause, hops + 1, &at)))
		return err;
	if (at == UINT32_MAX)
		at = thread_root(ct, l->thread, &err);
	for (uint32_t i = 0; !err && i < l->n; i++)
		err = child_of(ct, at, l->fids[i], &at);
	if (!err && !(err = u64map__put(&ct->stitched, id, at)))
		*node = at;
	return err;
}

/* Where the frame on top of stack hangs: under its caller, or stitched
 * under its cause. */
static int parent_of(struct calltree *ct, const struct ct_thread *t, const struct ct_info *ci,
		     const struct frame *stack, uint32_t depth, uint32_t *parent)
{
	*parent = depth > 1 ? t->node[depth - 2] : ci->root;
	if (!ct->stitch || !stitch__follows(stack, depth - 1))
		return 0;
	return stitched_node(ct, stack[depth - 1].cause, 0, parent);
}

static int ct_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct calltree *ct = ctx;
	struct ct_thread *t = thread_of(ct, th);
	struct ct_info *ci = info_of(ct, th);
	uint32_t parent;
	int err;

	if (!t || !ci || reserve(t, depth))
		return -ENOMEM;
	see_time(ct, stack[depth - 1].begin_ns);
	if ((err = parent_of(ct, t, ci, stack, depth, &parent)))
		return err;
	t->child_ns[depth - 1] = 0;
	t->probes[depth - 1] = (struct comp_depth){ 0 };
	return child_of(ct, parent, stack[depth - 1].fid, &t->node[depth - 1]);
}

/* A frame's self costs into its node's sums: made for every node the
 * first time a frame has any. */
static int add_costs(struct calltree *ct, uint32_t node, const struct frame_costs *fc)
{
	if (!fc || !frame_costs__any(fc))
		return 0;
	if (!ct->costs && !(ct->costs = calloc(ct->cap, sizeof(*ct->costs))))
		return -ENOMEM;
	for (int k = 0; k < COST_NKINDS; k++)
		ct->costs[node][k] += fc->self[k];
	return 0;
}

static int ct_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct calltree *ct = ctx;
	struct ct_thread *t = thread_of(ct, th);
	uint64_t begin = stack[depth - 1].begin_ns;
	uint64_t dur = end_ns > begin ? end_ns - begin : 0;
	struct calltree_node *n;
	struct comp_frame cf;
	uint64_t self;

	(void)how;
	if (!t || depth > t->cap)
		return -EINVAL;
	see_time(ct, end_ns);
	n = &ct->nodes[t->node[depth - 1]];
	cf = comp__leave(&t->probes[depth - 1], depth > 1 ? &t->probes[depth - 2] : NULL);
	self = dur > t->child_ns[depth - 1] ? dur - t->child_ns[depth - 1] : 0;
	n->calls++;
	n->total_ns += figure(ct, dur, comp__in_total(&ct->cost, cf));
	n->self_ns += figure(ct, self, comp__in_self(&ct->cost, cf));
	if (depth > 1)
		t->child_ns[depth - 2] += dur;
	return add_costs(ct, t->node[depth - 1], stack[depth - 1].costs);
}

static int ct_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct calltree *ct = ctx;
	struct ct_info *ci = info_of(ct, th);
	uint32_t deep, node;
	int err;

	if (!ci)
		return -ENOMEM;
	err = child_of(ct, ci->root, CALLTREE_ELIDED, &deep);
	if (!err)
		err = child_of(ct, deep, fid, &node);
	if (err)
		return err;
	ct->nodes[node].calls += calls;
	ct->nodes[node].total_ns += total_ns;
	return 0;
}

static int ct_function(void *ctx, const struct trace_function *fn)
{
	struct calltree *ct = ctx;
	struct trace_function *f;

	if (fn->id >= CALLTREE_THREAD_ROOT)
		return -EINVAL;
	if (fn->id >= ct->nfns) {
		uint32_t n = fn->id + 64;
		struct trace_function *v = realloc(ct->fns, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + ct->nfns, 0, (n - ct->nfns) * sizeof(*v));
		ct->fns = v;
		ct->nfns = n;
	}
	f = &ct->fns[fn->id];
	free((char *)f->name);
	free((char *)f->file);
	free((char *)f->mangled);
	free((char *)f->object);
	free((char *)f->build_id);
	*f = *fn;
	f->name = strdup(fn->name ? fn->name : "?");
	f->file = dup_or_null(fn->file);
	f->mangled = dup_or_null(fn->mangled);
	f->object = dup_or_null(fn->object);
	f->build_id = dup_or_null(fn->build_id);
	if (f->name && (f->file || !fn->file) && (f->mangled || !fn->mangled) &&
	    (f->object || !fn->object) && (f->build_id || !fn->build_id))
		return 0;
	return -ENOMEM;
}

static int ct_thread(void *ctx, const struct trace_thread *th)
{
	return thread_of(ctx, th) && info_of(ctx, th) ? 0 : -ENOMEM;
}

static int ct_thread_end(void *ctx, const struct trace_thread *th)
{
	thread_slots__put(&((struct calltree *)ctx)->threads, th);
	return 0;
}

/* As in the report: the cost handed over first must be the stats' own. */
static int ct_stats(void *ctx, const struct trace_stats *st)
{
	struct calltree *ct = ctx;
	struct comp_cost c = comp__costs(st->probe_cost_ns, st->probe_entry_ns, st->probe_exit_ns);

	ct->st = *st;
	if (ct->compensated && (!ct->cost_known || !comp__same(&ct->cost, &c)))
		return -EPROTO;
	return 0;
}

static int ct_probe_cost(void *ctx, const struct comp_cost *cost)
{
	struct calltree *ct = ctx;

	ct->cost = *cost;
	ct->cost_known = true;
	return 0;
}

static int ct_finish(void *ctx)
{
	(void)ctx;
	return 0;
}

/* Every op but probe_cost, listed once for both tables. */
#define CT_OPS                                                                              \
	.function = ct_function, .thread = ct_thread, .enter = ct_enter, .leave = ct_leave, \
	.elided = ct_elided, .stats = ct_stats, .finish = ct_finish, .thread_end = ct_thread_end

static const struct frame_sink_ops ct_ops = { CT_OPS };
/* The same, asking for the probe cost before the calls. */
static const struct frame_sink_ops ct_ops_compensated = { CT_OPS, .probe_cost = ct_probe_cost };

static int ct_new(struct calltree **out, bool by_thread)
{
	struct calltree *ct = calloc(1, sizeof(*ct));

	if (!ct)
		return -ENOMEM;
	ct->cap = 256;
	ct->nodes = calloc(ct->cap, sizeof(*ct->nodes));
	if (!ct->nodes) {
		free(ct);
		return -ENOMEM;
	}
	ct->n = 1; /* the root */
	ct->by_thread = by_thread;
	thread_slots__init(&ct->threads, sizeof(struct ct_thread), thread_release);
	*out = ct;
	return 0;
}

int calltree__new(struct calltree **out)
{
	return ct_new(out, false);
}

int calltree__new_by_thread(struct calltree **out)
{
	return ct_new(out, true);
}

struct frame_sink calltree__sink(struct calltree *ct)
{
	return (struct frame_sink){ .ops = ct->compensated ? &ct_ops_compensated : &ct_ops,
				    .ctx = ct };
}

size_t calltree__count(const struct calltree *ct)
{
	return ct->n;
}

const struct calltree_node *calltree__node(const struct calltree *ct, size_t i)
{
	return &ct->nodes[i];
}

const char *calltree__name(const struct calltree *ct, uint32_t fid)
{
	if (fid == CALLTREE_ELIDED)
		return "[deeper than the trace's depth cap]";
	if (fid & CALLTREE_THREAD_ROOT)
		return "[thread]";
	return fid < ct->nfns && ct->fns[fid].name ? ct->fns[fid].name : "?";
}

const struct trace_function *calltree__function(const struct calltree *ct, uint32_t fid)
{
	return fid < ct->nfns && ct->fns[fid].name ? &ct->fns[fid] : NULL;
}

uint32_t calltree__max_fid(const struct calltree *ct)
{
	return ct->nfns ? ct->nfns - 1 : 0;
}

const struct trace_thread *calltree__thread(const struct calltree *ct, size_t idx)
{
	return idx < ct->ninfos && ct->infos[idx].info.name ? &ct->infos[idx].info : NULL;
}

const struct trace_stats *calltree__stats(const struct calltree *ct)
{
	return &ct->st;
}

void calltree__span(const struct calltree *ct, uint64_t *first_ns, uint64_t *last_ns)
{
	*first_ns = ct->first_ns;
	*last_ns = ct->last_ns;
}

const uint64_t *calltree__costs(const struct calltree *ct, size_t i)
{
	return ct->costs && i < ct->n ? ct->costs[i] : NULL;
}

bool calltree__has_costs(const struct calltree *ct)
{
	return ct->st.costs || ct->costs;
}

void calltree__free(struct calltree *ct)
{
	if (!ct)
		return;
	for (uint32_t i = 0; i < ct->nfns; i++) {
		free((char *)ct->fns[i].name);
		free((char *)ct->fns[i].file);
		free((char *)ct->fns[i].mangled);
		free((char *)ct->fns[i].object);
		free((char *)ct->fns[i].build_id);
	}
	for (uint32_t i = 0; i < ct->ninfos; i++)
		free_info(&ct->infos[i].info);
	free(ct->fns);
	free(ct->infos);
	u64map__clear(&ct->children);
	u64map__clear(&ct->stitched);
	thread_slots__clear(&ct->threads);
	free(ct->nodes);
	free(ct->costs);
	free(ct);
}

void calltree__compensate(struct calltree *ct)
{
	ct->compensated = true;
}

bool calltree__compensated(const struct calltree *ct)
{
	return ct->compensated;
}
