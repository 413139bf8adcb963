// SPDX-License-Identifier: MIT
/* calltree.c: see calltree.h.  Each thread keeps, per open frame, the node
 * of its path and the time its callees took, so self time is exact. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/calltree.h"
#include "model/thread_slots.h"
#include "util/u64map.h"

/* Calls a writer elided (deeper than its cap) hang under this node. */
#define ELIDED_FID UINT32_MAX

struct ct_thread {
	uint32_t *node; /* per depth */
	uint64_t *child_ns;
	uint32_t cap;
};

struct calltree {
	struct calltree_node *nodes;
	size_t n, cap;
	struct u64map children;	     /* (parent << 32 | fid) + 1 -> node */
	struct thread_slots threads; /* struct ct_thread by thread index */
	char **names;		     /* by fid */
	uint32_t nnames;
	struct trace_stats st;
};

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

		if (!v)
			return -ENOMEM;
		ct->nodes = v;
		ct->cap = cap;
	}
	ct->nodes[ct->n] = (struct calltree_node){ .parent = parent, .fid = fid };
	*out = (uint32_t)ct->n;
	return u64map__put(&ct->children, key, ct->n++);
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
}

static int reserve(struct ct_thread *t, uint32_t depth)
{
	uint32_t cap = t->cap ? t->cap : 64;
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
	t->cap = cap;
	return 0;
}

static int ct_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct calltree *ct = ctx;
	struct ct_thread *t = thread_of(ct, th);
	uint32_t parent;

	if (!t || reserve(t, depth))
		return -ENOMEM;
	parent = depth > 1 ? t->node[depth - 2] : 0;
	t->child_ns[depth - 1] = 0;
	return child_of(ct, parent, stack[depth - 1].fid, &t->node[depth - 1]);
}

static int ct_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct calltree *ct = ctx;
	struct ct_thread *t = thread_of(ct, th);
	uint64_t begin = stack[depth - 1].begin_ns;
	uint64_t dur = end_ns > begin ? end_ns - begin : 0;
	struct calltree_node *n;

	(void)how;
	if (!t || depth > t->cap)
		return -EINVAL;
	n = &ct->nodes[t->node[depth - 1]];
	n->calls++;
	n->total_ns += dur;
	n->self_ns += dur > t->child_ns[depth - 1] ? dur - t->child_ns[depth - 1] : 0;
	if (depth > 1)
		t->child_ns[depth - 2] += dur;
	return 0;
}

static int ct_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct calltree *ct = ctx;
	uint32_t deep, node;
	int err;

	(void)th;
	err = child_of(ct, 0, ELIDED_FID, &deep);
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

	if (fn->id >= ct->nnames) {
		uint32_t n = fn->id + 64;
		char **v = realloc(ct->names, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + ct->nnames, 0, (n - ct->nnames) * sizeof(*v));
		ct->names = v;
		ct->nnames = n;
	}
	free(ct->names[fn->id]);
	ct->names[fn->id] = strdup(fn->name ? fn->name : "?");
	return ct->names[fn->id] ? 0 : -ENOMEM;
}

static int ct_thread(void *ctx, const struct trace_thread *th)
{
	return thread_of(ctx, th) ? 0 : -ENOMEM;
}

static int ct_thread_end(void *ctx, const struct trace_thread *th)
{
	thread_slots__put(&((struct calltree *)ctx)->threads, th);
	return 0;
}

static int ct_stats(void *ctx, const struct trace_stats *st)
{
	((struct calltree *)ctx)->st = *st;
	return 0;
}

static int ct_finish(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct frame_sink_ops ct_ops = {
	.function = ct_function,
	.thread = ct_thread,
	.enter = ct_enter,
	.leave = ct_leave,
	.elided = ct_elided,
	.stats = ct_stats,
	.finish = ct_finish,
	.thread_end = ct_thread_end,
};

int calltree__new(struct calltree **out)
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
	thread_slots__init(&ct->threads, sizeof(struct ct_thread), thread_release);
	*out = ct;
	return 0;
}

struct frame_sink calltree__sink(struct calltree *ct)
{
	return (struct frame_sink){ .ops = &ct_ops, .ctx = ct };
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
	if (fid == ELIDED_FID)
		return "[deeper than the trace's depth cap]";
	return fid < ct->nnames && ct->names[fid] ? ct->names[fid] : "?";
}

const struct trace_stats *calltree__stats(const struct calltree *ct)
{
	return &ct->st;
}

void calltree__free(struct calltree *ct)
{
	if (!ct)
		return;
	for (uint32_t i = 0; i < ct->nnames; i++)
		free(ct->names[i]);
	free(ct->names);
	u64map__clear(&ct->children);
	thread_slots__clear(&ct->threads);
	free(ct->nodes);
	free(ct);
}
