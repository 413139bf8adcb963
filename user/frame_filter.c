/* frame_filter.c: see frame_filter.h. */
#include <errno.h>
#include <stdlib.h>

#include "frame_filter.h"

struct ff_thread {
	uint32_t tid;
	uint32_t used;      /* slot taken */
	uint32_t committed; /* bottom frames already passed on */
};

struct frame_filter {
	struct frame_sink down;
	struct frame_filter_opts opts;
	struct ff_thread *threads; /* open addressing by tid */
	size_t cap, n;
	uint64_t depth_dropped, short_dropped;
};

static struct ff_thread *lookup(struct frame_filter *f, uint32_t tid);

static int grow(struct frame_filter *f)
{
	struct ff_thread *old = f->threads;
	size_t oldcap = f->cap;

	f->cap = oldcap ? oldcap * 2 : 64;
	f->threads = calloc(f->cap, sizeof(*f->threads));
	if (!f->threads) {
		f->threads = old;
		f->cap = oldcap;
		return -ENOMEM;
	}
	f->n = 0;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*lookup(f, old[i].tid) = old[i];
	free(old);
	return 0;
}

/* Returns the thread's slot, claiming a free one; NULL only if full. */
static struct ff_thread *lookup(struct frame_filter *f, uint32_t tid)
{
	size_t i;

	for (i = tid & (f->cap - 1); f->threads[i].used; i = (i + 1) & (f->cap - 1))
		if (f->threads[i].tid == tid)
			return &f->threads[i];
	f->threads[i].used = 1;
	f->threads[i].tid = tid;
	f->n++;
	return &f->threads[i];
}

static struct ff_thread *thread_of(struct frame_filter *f, uint32_t tid)
{
	if ((f->n + 1) * 2 > f->cap && grow(f))
		return NULL;
	return lookup(f, tid);
}

/* Passes on every pending frame below limit that has lasted long enough
 * by time now. */
static int commit(struct frame_filter *f, struct ff_thread *t, const struct trace_thread *th,
		  const struct frame *stack, uint32_t limit, uint64_t now)
{
	while (t->committed < limit &&
	       now - stack[t->committed].begin_ns >= f->opts.min_duration_ns) {
		int err;

		t->committed++;
		err = f->down.ops->enter(f->down.ctx, th, stack, t->committed);
		if (err)
			return err;
	}
	return 0;
}

static int ff_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t;
	uint32_t limit = depth;

	if (f->opts.max_depth && depth > f->opts.max_depth) {
		f->depth_dropped++;
		limit = f->opts.max_depth;
	}
	t = thread_of(f, th->tid);
	if (!t)
		return -ENOMEM;
	/* The new frame has lasted 0 ns: only its callers may be due. */
	return commit(f, t, th, stack, limit, stack[depth - 1].begin_ns);
}

static int ff_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct frame_filter *f = ctx;
	struct ff_thread *t;
	int err;

	if (f->opts.max_depth && depth > f->opts.max_depth)
		return 0;
	t = thread_of(f, th->tid);
	if (!t)
		return -ENOMEM;
	err = commit(f, t, th, stack, depth, end_ns);
	if (err)
		return err;
	if (t->committed < depth) {
		f->short_dropped++;
		return 0;
	}
	t->committed = depth - 1;
	return f->down.ops->leave(f->down.ctx, th, stack, depth, end_ns, how);
}

static int ff_function(void *ctx, const struct trace_function *fn)
{
	struct frame_filter *f = ctx;

	return f->down.ops->function(f->down.ctx, fn);
}

static int ff_thread(void *ctx, const struct trace_thread *th)
{
	struct frame_filter *f = ctx;

	return f->down.ops->thread(f->down.ctx, th);
}

static int ff_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct frame_filter *f = ctx;

	if (!f->down.ops->elided)
		return 0;
	return f->down.ops->elided(f->down.ctx, th, fid, calls, total_ns);
}

static int ff_stats(void *ctx, const struct trace_stats *st)
{
	struct frame_filter *f = ctx;
	struct trace_stats s = *st;

	s.max_depth_dropped += f->depth_dropped;
	s.short_dropped += f->short_dropped;
	return f->down.ops->stats(f->down.ctx, &s);
}

static int ff_finish(void *ctx)
{
	struct frame_filter *f = ctx;

	return f->down.ops->finish(f->down.ctx);
}

static const struct frame_sink_ops ff_ops = {
	.function = ff_function,
	.thread = ff_thread,
	.enter = ff_enter,
	.leave = ff_leave,
	.elided = ff_elided,
	.stats = ff_stats,
	.finish = ff_finish,
};

int frame_filter__new(const struct frame_sink *down, const struct frame_filter_opts *opts,
		      struct frame_filter **out)
{
	struct frame_filter *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->down = *down;
	f->opts = *opts;
	if (grow(f)) {
		free(f);
		return -ENOMEM;
	}
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
	free(f->threads);
	free(f);
}
