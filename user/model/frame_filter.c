// SPDX-License-Identifier: MIT
/* frame_filter.c: see frame_filter.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_filter.h"
#include "model/thread_slots.h"

struct held_switch {
	uint64_t ts;
	enum thread_state state;
};

/* What the filter keeps per thread. */
struct ff_thread {
	uint64_t committed; /* bottom frames already passed on */
	uint32_t depth;	    /* frames open after the last enter or leave */
	/* Switches held back while a frame is pending (below), in order: one
	 * passed on at once would come before the enter of a pending frame
	 * that began before it, and the sink below wants time order. */
	struct held_switch *held;
	size_t nheld, cap;
};

struct frame_filter {
	struct frame_sink down;
	struct frame_filter_opts opts;
	struct thread_slots threads; /* struct ff_thread */
	uint64_t depth_dropped, short_dropped;
};

static void release_thread(void *slot)
{
	free(((struct ff_thread *)slot)->held);
}

/* The thread's state, created empty; NULL only when out of memory. */
static struct ff_thread *thread_of(struct frame_filter *f, const struct trace_thread *th)
{
	return thread_slots__get(&f->threads, th);
}

/* Frames from `committed` up to here may still be passed on. */
static uint32_t pending_top(const struct frame_filter *f, uint32_t depth)
{
	return f->opts.max_depth && depth > f->opts.max_depth ? f->opts.max_depth : depth;
}

/* Passes on the held switches older than until. */
static int release(struct frame_filter *f, struct ff_thread *t, const struct trace_thread *th,
		   uint64_t until)
{
	size_t n;
	int err = 0;

	for (n = 0; n < t->nheld && t->held[n].ts < until && !err; n++)
		err = f->down.ops->sched(f->down.ctx, th, t->held[n].ts, t->held[n].state);
	memmove(t->held, t->held + n, (t->nheld - n) * sizeof(*t->held));
	t->nheld -= n;
	return err;
}

/* Passes on every pending frame below limit that has lasted long enough
 * by time now, each after the switches held from before it began. */
static int commit(struct frame_filter *f, struct ff_thread *t, const struct trace_thread *th,
		  const struct frame *stack, uint32_t limit, uint64_t now)
{
	while (t->committed < limit &&
	       now - stack[t->committed].begin_ns >= f->opts.min_duration_ns) {
		int err = t->nheld ? release(f, t, th, stack[t->committed].begin_ns) : 0;

		if (!err)
			err = f->down.ops->enter(f->down.ctx, th, stack, (uint32_t)++t->committed);
		if (err)
			return err;
	}
	return 0;
}

/* depth frames are open now: what is held from before the lowest pending
 * frame began (everything, without one) goes on. */
static int settle(struct frame_filter *f, struct ff_thread *t, const struct trace_thread *th,
		  const struct frame *stack, uint32_t depth)
{
	t->depth = depth;
	if (!t->nheld)
		return 0;
	return release(f, t, th,
		       t->committed < pending_top(f, depth) ? stack[t->committed].begin_ns
							    : UINT64_MAX);
}

static int ff_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t = thread_of(f, th);
	int err;

	if (!t)
		return -ENOMEM;
	if (f->opts.max_depth && depth > f->opts.max_depth)
		f->depth_dropped++;
	/* The new frame has lasted 0 ns: only its callers may be due. */
	err = commit(f, t, th, stack, pending_top(f, depth), stack[depth - 1].begin_ns);
	return err ? err : settle(f, t, th, stack, depth);
}

static int ff_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t = thread_of(f, th);
	int err;

	if (!t)
		return -ENOMEM;
	if (f->opts.max_depth && depth > f->opts.max_depth)
		return settle(f, t, th, stack, depth - 1);
	if ((err = commit(f, t, th, stack, depth, end_ns)))
		return err;
	if (t->committed < depth) {
		f->short_dropped++;
		return settle(f, t, th, stack, depth - 1);
	}
	/* nothing is pending: what is held goes before the end */
	if ((err = settle(f, t, th, stack, depth)))
		return err;
	t->committed = t->depth = depth - 1;
	return f->down.ops->leave(f->down.ctx, th, stack, depth, end_ns, how);
}

/* Passed on when the causing frame is passed on and nothing above it is
 * pending (a pending frame that began before ts would come after it).
 * Otherwise only the point is not drawn: the frame it caused still names
 * its cause. */
static int ff_cause(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, const struct cause_point *cp)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t = thread_of(f, th);

	if (!t)
		return -ENOMEM;
	if (!f->down.ops->cause || t->committed < pending_top(f, depth) || t->nheld)
		return 0;
	return f->down.ops->cause(f->down.ctx, th, stack, depth, cp);
}

/* Passed on at once unless a frame is pending; then held until it is
 * passed on or dropped. */
static int ff_sched(void *ctx, const struct trace_thread *th, uint64_t ts, enum thread_state state)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t;
	struct held_switch *v;

	if (!f->down.ops->sched)
		return 0;
	if (!(t = thread_of(f, th)))
		return -ENOMEM;
	if (t->committed >= pending_top(f, t->depth))
		return f->down.ops->sched(f->down.ctx, th, ts, state);
	if (t->nheld == t->cap) {
		size_t n = t->cap ? t->cap * 2 : 8;

		if (!(v = realloc(t->held, n * sizeof(*v))))
			return -ENOMEM;
		t->held = v;
		t->cap = n;
	}
	t->held[t->nheld++] = (struct held_switch){ ts, state };
	return 0;
}

static int ff_function(void *ctx, const struct trace_function *fn)
{
	struct frame_filter *f = ctx;

	return f->down.ops->function ? f->down.ops->function(f->down.ctx, fn) : 0;
}

static int ff_thread(void *ctx, const struct trace_thread *th)
{
	struct frame_filter *f = ctx;

	return f->down.ops->thread ? f->down.ops->thread(f->down.ctx, th) : 0;
}

static int ff_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct frame_filter *f = ctx;

	if (!f->down.ops->elided)
		return 0;
	return f->down.ops->elided(f->down.ctx, th, fid, calls, total_ns);
}

static int ff_thread_end(void *ctx, const struct trace_thread *th)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t = thread_slots__peek(&f->threads, th->index);
	int err = t && t->nheld ? release(f, t, th, UINT64_MAX) : 0;

	thread_slots__put(&f->threads, th);
	if (err)
		return err;
	return f->down.ops->thread_end ? f->down.ops->thread_end(f->down.ctx, th) : 0;
}

static int ff_stats(void *ctx, const struct trace_stats *st)
{
	struct frame_filter *f = ctx;
	struct trace_stats s = *st;

	s.max_depth_dropped += f->depth_dropped;
	s.short_dropped += f->short_dropped;
	return f->down.ops->stats ? f->down.ops->stats(f->down.ctx, &s) : 0;
}

static int ff_gap(void *ctx, const struct trace_gap *g)
{
	struct frame_filter *f = ctx;

	return f->down.ops->gap ? f->down.ops->gap(f->down.ctx, g) : 0;
}

static int ff_finish(void *ctx)
{
	struct frame_filter *f = ctx;

	return f->down.ops->finish ? f->down.ops->finish(f->down.ctx) : 0;
}

static const struct frame_sink_ops ff_ops = {
	.function = ff_function,
	.thread = ff_thread,
	.enter = ff_enter,
	.leave = ff_leave,
	.elided = ff_elided,
	.stats = ff_stats,
	.gap = ff_gap,
	.finish = ff_finish,
	.thread_end = ff_thread_end,
	.sched = ff_sched,
	.cause = ff_cause,
};

int frame_filter__new(const struct frame_sink *down, const struct frame_filter_opts *opts,
		      struct frame_filter **out)
{
	struct frame_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->down = *down;
	f->opts = *opts;
	thread_slots__init(&f->threads, sizeof(struct ff_thread), release_thread);
	*out = f;
	return 0;
}

struct frame_sink frame_filter__sink(struct frame_filter *f)
{
	return (struct frame_sink){ .ops = &ff_ops, .ctx = f };
}

void frame_filter__free(struct frame_filter *f)
{
	if (!f)
		return;
	thread_slots__clear(&f->threads);
	free(f);
}
