// SPDX-License-Identifier: MIT
/* frame_filter.c: see frame_filter.h. */
#include <errno.h>
#include <stdlib.h>

#include "model/frame_filter.h"
#include "model/thread_slots.h"

struct frame_filter {
	struct frame_sink down;
	struct frame_filter_opts opts;
	struct thread_slots committed; /* per thread: bottom frames already passed on */
	uint64_t depth_dropped, short_dropped;
};

/* The thread's count of frames passed on, created at 0; NULL only when
 * out of memory. */
static uint64_t *committed_of(struct frame_filter *f, const struct trace_thread *th)
{
	return thread_slots__get(&f->committed, th);
}

/* Passes on every pending frame below limit that has lasted long enough
 * by time now. */
static int commit(struct frame_filter *f, uint64_t *committed, const struct trace_thread *th,
		  const struct frame *stack, uint32_t limit, uint64_t now)
{
	while (*committed < limit && now - stack[*committed].begin_ns >= f->opts.min_duration_ns) {
		int err;

		++*committed;
		err = f->down.ops->enter(f->down.ctx, th, stack, (uint32_t)*committed);
		if (err)
			return err;
	}
	return 0;
}

static int ff_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct frame_filter *f = ctx;
	uint64_t *committed;
	uint32_t limit = depth;

	if (f->opts.max_depth && depth > f->opts.max_depth) {
		f->depth_dropped++;
		limit = f->opts.max_depth;
	}
	committed = committed_of(f, th);
	if (!committed)
		return -ENOMEM;
	/* The new frame has lasted 0 ns: only its callers may be due. */
	return commit(f, committed, th, stack, limit, stack[depth - 1].begin_ns);
}

static int ff_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct frame_filter *f = ctx;
	uint64_t *committed;
	int err;

	if (f->opts.max_depth && depth > f->opts.max_depth)
		return 0;
	committed = committed_of(f, th);
	if (!committed)
		return -ENOMEM;
	err = commit(f, committed, th, stack, depth, end_ns);
	if (err)
		return err;
	if (*committed < depth) {
		f->short_dropped++;
		return 0;
	}
	*committed = depth - 1;
	return f->down.ops->leave(f->down.ctx, th, stack, depth, end_ns, how);
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

	thread_slots__put(&f->committed, th);
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
};

int frame_filter__new(const struct frame_sink *down, const struct frame_filter_opts *opts,
		      struct frame_filter **out)
{
	struct frame_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->down = *down;
	f->opts = *opts;
	thread_slots__init(&f->committed, sizeof(uint64_t), NULL);
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
	thread_slots__clear(&f->committed);
	free(f);
}
