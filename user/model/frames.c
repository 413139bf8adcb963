// SPDX-License-Identifier: MIT
/* frames.c: the frame builder behind frames.h.  Producers push enter/leave
 * events; the builder keeps one shadow stack per thread and forwards
 * complete frames to the sink.  Memory is the open stacks and one record
 * per thread ever seen; nothing grows with the length of the trace.
 *
 * Counting contract: the builder counts every leave by how it ended
 * (FRAME_INFERRED -> inferred_exits, FRAME_UNFINISHED -> unfinished,
 * including the frames finish() closes) and leaves on an empty stack
 * (-> unmatched_exits), and adds these to the caller's trace_stats in
 * finish().  Producers must not count those three themselves. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/frames.h"

struct fb_thread {
	struct trace_thread th; /* strings owned by this record */
	struct frame *stack;
	uint32_t depth;
	uint32_t cap;
	uint64_t last_ts; /* where finish() closes what is still open */
	struct fb_thread *hnext;
	struct fb_thread *next; /* creation order, so finish() is deterministic */
};

struct frame_builder {
	struct frame_sink sink;
	struct fb_thread **buckets;
	size_t nbuckets; /* power of two */
	size_t nthreads;
	struct fb_thread *first, *last;
	struct fb_thread *cached; /* consecutive events usually share a thread */
	uint64_t unmatched, inferred, unfinished;
	bool finished;
};

static size_t tid_bucket(uint32_t tid, size_t nbuckets)
{
	return (size_t)((tid * 2654435761u) & (nbuckets - 1));
}

struct frame_builder *frame_builder__new(const struct frame_sink *sink)
{
	struct frame_builder *fb = calloc(1, sizeof(*fb));

	if (!fb)
		return NULL;
	fb->sink = *sink;
	fb->nbuckets = 64;
	fb->buckets = calloc(fb->nbuckets, sizeof(*fb->buckets));
	if (!fb->buckets) {
		free(fb);
		return NULL;
	}
	return fb;
}

static void thread_free(struct fb_thread *t)
{
	free((char *)t->th.name);
	free((char *)t->th.process_name);
	free((char *)t->th.cmdline);
	free(t->stack);
	free(t);
}

void frame_builder__free(struct frame_builder *fb)
{
	struct fb_thread *t, *n;

	if (!fb)
		return;
	for (t = fb->first; t; t = n) {
		n = t->next;
		thread_free(t);
	}
	free(fb->buckets);
	free(fb);
}

int frame_builder__function(struct frame_builder *fb, const struct trace_function *fn)
{
	if (!fb->sink.ops->function)
		return 0;
	return fb->sink.ops->function(fb->sink.ctx, fn);
}

struct fb_thread *frame_builder__find(struct frame_builder *fb, uint32_t tid)
{
	struct fb_thread *t = fb->cached;

	if (t && t->th.tid == tid)
		return t;
	for (t = fb->buckets[tid_bucket(tid, fb->nbuckets)]; t; t = t->hnext)
		if (t->th.tid == tid)
			return fb->cached = t;
	return NULL;
}

static int rehash(struct frame_builder *fb)
{
	size_t n = fb->nbuckets * 2;
	struct fb_thread **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (struct fb_thread *t = fb->first; t; t = t->next) {
		size_t i = tid_bucket(t->th.tid, n);

		t->hnext = b[i];
		b[i] = t;
	}
	free(fb->buckets);
	fb->buckets = b;
	fb->nbuckets = n;
	return 0;
}

/* NULL stays NULL only for cmdline; names become "" so sinks can print them. */
static int copy_str(const char **dst, const char *src, bool keep_null)
{
	if (!src && keep_null) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(src ? src : "");
	return *dst ? 0 : -ENOMEM;
}

static struct fb_thread *thread_new(uint32_t pid, uint32_t tid, const char *name,
				    const char *process_name, const char *cmdline)
{
	struct fb_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->th.pid = pid;
	t->th.tid = tid;
	if (copy_str(&t->th.name, name, false) ||
	    copy_str(&t->th.process_name, process_name, false) ||
	    copy_str(&t->th.cmdline, cmdline, true)) {
		thread_free(t);
		return NULL;
	}
	return t;
}

int frame_builder__thread(struct frame_builder *fb, uint32_t pid, uint32_t tid, const char *name,
			  const char *process_name, const char *cmdline, struct fb_thread **out)
{
	struct fb_thread *t = frame_builder__find(fb, tid);
	size_t i;
	int err;

	if (t) {
		*out = t;
		return 0;
	}
	if (fb->nthreads >= fb->nbuckets && (err = rehash(fb)))
		return err;
	t = thread_new(pid, tid, name, process_name, cmdline);
	if (!t)
		return -ENOMEM;
	i = tid_bucket(tid, fb->nbuckets);
	t->hnext = fb->buckets[i];
	fb->buckets[i] = t;
	if (fb->last)
		fb->last->next = t;
	else
		fb->first = t;
	fb->last = t;
	fb->nthreads++;
	fb->cached = t;
	*out = t;
	if (!fb->sink.ops->thread)
		return 0;
	return fb->sink.ops->thread(fb->sink.ctx, &t->th);
}

static int grow_stack(struct fb_thread *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 16;
	struct frame *s;

	if (cap <= t->cap)
		return -EOVERFLOW;
	s = realloc(t->stack, (size_t)cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	t->stack = s;
	t->cap = cap;
	return 0;
}

int frame_builder__enter(struct frame_builder *fb, struct fb_thread *t, uint32_t fid, uint64_t ts,
			 uint64_t sp)
{
	int err;

	if (t->depth == t->cap && (err = grow_stack(t)))
		return err;
	t->stack[t->depth++] = (struct frame){ .fid = fid, .begin_ns = ts, .sp = sp };
	if (ts > t->last_ts)
		t->last_ts = ts;
	return fb->sink.ops->enter(fb->sink.ctx, &t->th, t->stack, t->depth);
}

int frame_builder__leave(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
			 enum frame_end how)
{
	int err;

	if (!t->depth) {
		fb->unmatched++;
		return 0;
	}
	if (ts > t->last_ts)
		t->last_ts = ts;
	if (how == FRAME_INFERRED)
		fb->inferred++;
	else if (how == FRAME_UNFINISHED)
		fb->unfinished++;
	err = fb->sink.ops->leave(fb->sink.ctx, &t->th, t->stack, t->depth, ts, how);
	t->depth--;
	return err;
}

uint32_t frame_builder__depth(const struct fb_thread *t)
{
	return t->depth;
}

const struct frame *frame_builder__top(const struct fb_thread *t)
{
	return t->depth ? &t->stack[t->depth - 1] : NULL;
}

int frame_builder__elided(struct frame_builder *fb, struct fb_thread *t, uint32_t fid,
			  uint64_t calls, uint64_t total_ns)
{
	if (!fb->sink.ops->elided)
		return 0;
	return fb->sink.ops->elided(fb->sink.ctx, &t->th, fid, calls, total_ns);
}

int frame_builder__end_thread(struct frame_builder *fb, struct fb_thread *t, uint64_t ts)
{
	int err;

	while (t->depth)
		if ((err = frame_builder__leave(fb, t, ts, FRAME_UNFINISHED)))
			return err;
	return 0;
}

int frame_builder__finish(struct frame_builder *fb, struct trace_stats *st)
{
	struct trace_stats local = { 0 };
	int err;

	if (fb->finished)
		return -EALREADY;
	fb->finished = true;
	for (struct fb_thread *t = fb->first; t; t = t->next)
		if ((err = frame_builder__end_thread(fb, t, t->last_ts)))
			return err;
	if (!st)
		st = &local;
	st->unmatched_exits += fb->unmatched;
	st->inferred_exits += fb->inferred;
	st->unfinished += fb->unfinished;
	if (fb->sink.ops->stats && (err = fb->sink.ops->stats(fb->sink.ctx, st)))
		return err;
	return fb->sink.ops->finish ? fb->sink.ops->finish(fb->sink.ctx) : 0;
}
