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
 * finish().  Producers must not count those three themselves.
 *
 * Live threads are found by (pid, tid); the table maps that pair to its
 * live slot (index + 1) and to 0 once the thread ended, so a reused tid
 * never finds the slot of the thread that had it before.  Processes are
 * tracked the same way, and end with their main thread (tid == pid): the
 * only exit every producer sees, as threads of a process may never show
 * up in a trace (not traced, or no traced call). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/fid_tally.h"
#include "model/frames.h"
#include "util/u64map.h"

struct fb_thread {
	struct trace_thread th; /* strings owned by this record */
	struct frame *stack;
	uint32_t depth;
	uint32_t cap;
	uint64_t last_ts; /* where finish() closes what is still open */
	/* On-CPU time: the total up to `since`, when the state last changed
	 * (or the thread was first seen, running). */
	uint64_t cpu_ns, since;
	enum thread_state state;
	bool seen; /* since is set */
	bool ended;
	bool top_is_leaf; /* nothing entered since the top frame did */
	uint64_t ordinal; /* frames entered so far */
	/* what its next frame's cause is (struct frame) */
	uint64_t cause, flow;
	enum frame_cause cause_kind;
	struct cost_stack *costs; /* NULL until it spends something */
};

struct frame_builder {
	struct frame_sink sink;
	struct fb_thread **threads; /* by index */
	uint32_t nthreads, cap;
	struct u64map live;	 /* thread_key(pid, tid) -> index + 1, 0 once ended */
	struct u64map live_proc; /* pid + 1 -> process index + 1, 0 once ended */
	uint32_t nprocs;
	struct fb_thread *cached; /* consecutive events usually share a thread */
	uint64_t unmatched, inferred, unfinished;
	uint64_t resumed;	/* switches back to a CPU inferred from a call */
	uint64_t flows;		/* the links frame_builder__cause made */
	uint64_t leaf_min;	/* shortest measured leaf call, UINT64_MAX: none */
	struct fid_tally tally; /* frame_builder__tally's */
	bool tallying;
	bool finished;
};

static uint64_t thread_key(uint32_t pid, uint32_t tid)
{
	/* +1: pid 0 / tid 0 (the idle task) must not be key 0 */
	return ((uint64_t)pid << 32 | tid) + 1;
}

struct frame_builder *frame_builder__new(const struct frame_sink *sink)
{
	struct frame_builder *fb = calloc(1, sizeof(*fb));

	if (!fb)
		return NULL;
	fb->sink = *sink;
	fb->leaf_min = UINT64_MAX;
	return fb;
}

static void thread_free(struct fb_thread *t)
{
	/* frames still open when a producer gave up */
	for (uint32_t i = 0; i < t->depth; i++)
		frame_values__free(t->stack[i].values);
	free((char *)t->th.name);
	free((char *)t->th.process_name);
	free((char *)t->th.cmdline);
	free(t->stack);
	cost_stack__free(t->costs);
	free(t);
}

void frame_builder__free(struct frame_builder *fb)
{
	if (!fb)
		return;
	for (uint32_t i = 0; i < fb->nthreads; i++)
		thread_free(fb->threads[i]);
	free(fb->threads);
	fid_tally__free(&fb->tally);
	u64map__clear(&fb->live);
	u64map__clear(&fb->live_proc);
	free(fb);
}

int frame_builder__function(struct frame_builder *fb, const struct trace_function *fn)
{
	if (!fb->sink.ops->function)
		return 0;
	return fb->sink.ops->function(fb->sink.ctx, fn);
}

struct fb_thread *frame_builder__find(struct frame_builder *fb, uint32_t pid, uint32_t tid)
{
	struct fb_thread *t = fb->cached;
	uint64_t idx;

	if (t && t->th.tid == tid && t->th.pid == pid && !t->ended)
		return t;
	if (!u64map__get(&fb->live, thread_key(pid, tid), &idx) || !idx)
		return NULL;
	return fb->cached = fb->threads[idx - 1];
}

const struct trace_thread *frame_builder__info(const struct fb_thread *t)
{
	return &t->th;
}

uint32_t frame_builder__nthreads(const struct frame_builder *fb)
{
	return fb->nthreads;
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

/* The live process pid, or a new one. */
static int join_process(struct frame_builder *fb, struct fb_thread *t)
{
	uint64_t key = (uint64_t)t->th.pid + 1, idx = 0;
	int err;

	if (!u64map__get(&fb->live_proc, key, &idx) || !idx) {
		idx = ++fb->nprocs;
		if ((err = u64map__put(&fb->live_proc, key, idx)))
			return err;
	}
	t->th.process_index = (uint32_t)idx - 1;
	return 0;
}

static int store_thread(struct frame_builder *fb, struct fb_thread *t)
{
	struct fb_thread **v;
	int err;

	if (fb->nthreads == fb->cap) {
		uint32_t cap = fb->cap ? fb->cap * 2 : 64;

		if (!(v = realloc(fb->threads, cap * sizeof(*v))))
			return -ENOMEM;
		fb->threads = v;
		fb->cap = cap;
	}
	if ((err = join_process(fb, t)) ||
	    (err = u64map__put(&fb->live, thread_key(t->th.pid, t->th.tid), fb->nthreads + 1)))
		return err;
	t->th.index = t->th.uid = fb->nthreads;
	fb->threads[fb->nthreads++] = t;
	return 0;
}

int frame_builder__add_thread(struct frame_builder *fb, uint32_t pid, uint32_t tid,
			      const char *name, const char *process_name, const char *cmdline,
			      struct fb_thread **out)
{
	struct fb_thread *t = thread_new(pid, tid, name, process_name, cmdline);
	int err;

	if (!t)
		return -ENOMEM;
	if ((err = store_thread(fb, t))) {
		thread_free(t);
		return err;
	}
	fb->cached = t;
	*out = t;
	if (!fb->sink.ops->thread)
		return 0;
	return fb->sink.ops->thread(fb->sink.ctx, &t->th);
}

int frame_builder__thread(struct frame_builder *fb, uint32_t pid, uint32_t tid, const char *name,
			  const char *process_name, const char *cmdline, struct fb_thread **out)
{
	if ((*out = frame_builder__find(fb, pid, tid)))
		return 0;
	return frame_builder__add_thread(fb, pid, tid, name, process_name, cmdline, out);
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

const char *const thread_state_names[THREAD_NSTATES] = {
	[THREAD_RUNNING] = "Running",	[THREAD_RUNNABLE] = "Runnable",
	[THREAD_SLEEPING] = "Sleeping", [THREAD_BLOCKED] = "Uninterruptible Sleep",
	[THREAD_STOPPED] = "Stopped",
};

int thread_state__parse(const char *name)
{
	for (int i = 0; i < THREAD_NSTATES; i++)
		if (!strcmp(name, thread_state_names[i]))
			return i;
	return -1;
}

/* t's on-CPU total at ts: a thread first seen now is running. */
static uint64_t cpu_at(struct fb_thread *t, uint64_t ts)
{
	if (!t->seen) {
		t->seen = true;
		t->since = ts;
		t->state = THREAD_RUNNING;
	}
	if (t->state != THREAD_RUNNING || ts <= t->since)
		return t->cpu_ns;
	return t->cpu_ns + (ts - t->since);
}

int frame_builder__sched(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
			 enum thread_state state)
{
	if (ts < t->last_ts)
		ts = t->last_ts;
	t->cpu_ns = cpu_at(t, ts);
	if (ts > t->since)
		t->since = ts;
	t->state = state;
	t->last_ts = ts;
	if (!fb->sink.ops->sched)
		return 0;
	return fb->sink.ops->sched(fb->sink.ctx, &t->th, ts, state);
}

/* Why the kernel's word is not enough: docs/DESIGN.md, "On-CPU time". */
int frame_builder__resume(struct frame_builder *fb, struct fb_thread *t, uint64_t ts)
{
	if (!t->seen || t->state == THREAD_RUNNING || ts <= t->since)
		return 0;
	fb->resumed++;
	return frame_builder__sched(fb, t, ts, THREAD_RUNNING);
}

const char *const frame_cause_names[CAUSE_NKINDS] = {
	[CAUSE_NONE] = "",
	[CAUSE_SPAWN] = "spawn",
	[CAUSE_WAKEUP] = "wakeup",
	[CAUSE_HANDOFF] = "hand-off",
};

enum frame_cause frame_cause__parse(const char *name)
{
	for (int i = 1; i < CAUSE_NKINDS; i++)
		if (!strcmp(name, frame_cause_names[i]))
			return (enum frame_cause)i;
	return CAUSE_NONE;
}

uint32_t frame_builder__depth_of(const struct fb_thread *t, uint64_t id)
{
	for (uint32_t d = t->depth; d > 0; d--)
		if (t->stack[d - 1].id == id)
			return d;
	return 0;
}

void frame_builder__set_uid(struct fb_thread *t, uint32_t uid)
{
	t->th.uid = uid;
}

void frame_builder__caused(struct fb_thread *t, uint64_t cause, uint64_t flow,
			   enum frame_cause kind)
{
	t->cause = cause;
	t->flow = flow;
	t->cause_kind = cause ? kind : CAUSE_NONE;
}

enum frame_cause frame_builder__pending(const struct fb_thread *t)
{
	return t->cause_kind;
}

void frame_builder__pending_cause(const struct fb_thread *t, uint64_t *cause, uint64_t *flow)
{
	*cause = t->cause;
	*flow = t->flow;
}

void frame_builder__uncaused(struct fb_thread *t)
{
	frame_builder__caused(t, 0, 0, CAUSE_NONE);
}

int frame_builder__cause_point(struct frame_builder *fb, struct fb_thread *from,
			       const struct cause_point *cp)
{
	struct cause_point at = *cp;
	uint32_t depth = at.at_depth && at.at_depth < from->depth ? at.at_depth : from->depth;

	if (!from->depth || !fb->sink.ops->cause)
		return 0;
	if (at.ts < from->last_ts)
		at.ts = from->last_ts; /* as switches: two CPUs' clocks may disagree */
	from->last_ts = at.ts;
	return fb->sink.ops->cause(fb->sink.ctx, &from->th, from->stack, depth, &at);
}

uint64_t frame_builder__new_flow(struct frame_builder *fb)
{
	return ++fb->flows;
}

int frame_builder__cause(struct frame_builder *fb, struct fb_thread *from, struct fb_thread *to,
			 uint64_t ts, enum frame_cause kind)
{
	uint64_t flow;
	int err;

	if (!from->depth) {
		frame_builder__uncaused(to);
		return 0;
	}
	flow = frame_builder__new_flow(fb);
	frame_builder__caused(to, from->stack[from->depth - 1].id, flow, kind);
	err = frame_builder__cause_point(fb, from,
					 &(struct cause_point){ .ts = ts,
								.flow = flow,
								.kind = kind,
								.to_known = true,
								.to_uid = to->th.uid });
	return err ? err : 1;
}

int frame_builder__enter(struct frame_builder *fb, struct fb_thread *t, uint32_t fid, uint64_t ts,
			 uint64_t sp)
{
	int err;

	if (t->depth == t->cap && (err = grow_stack(t)))
		return err;
	t->stack[t->depth++] = (struct frame){ .fid = fid,
					       .cause_kind = t->cause_kind,
					       .id = FRAME_ID(t->th.uid, ++t->ordinal),
					       .cause = t->cause,
					       .flow = t->flow,
					       .begin_ns = ts,
					       .sp = sp,
					       .cpu_begin_ns = cpu_at(t, ts) };
	frame_builder__uncaused(t);
	if (t->costs && (err = cost_stack__enter(t->costs, t->depth)))
		return err;
	t->top_is_leaf = true;
	if (ts > t->last_ts)
		t->last_ts = ts;
	if (!fb->sink.ops->enter)
		return 0;
	return fb->sink.ops->enter(fb->sink.ctx, &t->th, t->stack, t->depth);
}

/* The shortest measured call that called nothing traced is an empty
 * function's duration at most: what the probes themselves add between the
 * two timestamps of a call.  That is the run's own calibration of the
 * probe cost (docs/DESIGN.md, "Probe cost"). */
static void note_leaf(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
		      enum frame_end how)
{
	const struct frame *f = &t->stack[t->depth - 1];

	if (t->top_is_leaf && how == FRAME_RETURNED && ts >= f->begin_ns &&
	    ts - f->begin_ns < fb->leaf_min)
		fb->leaf_min = ts - f->begin_ns;
	t->top_is_leaf = false;
}

void frame_builder__leaf(struct frame_builder *fb, uint64_t ns)
{
	if (ns < fb->leaf_min)
		fb->leaf_min = ns;
}

void frame_builder__seen(struct fb_thread *t, uint64_t ts)
{
	if (ts > t->last_ts)
		t->last_ts = ts;
}

void frame_builder__tally(struct frame_builder *fb)
{
	fb->tallying = true;
}

size_t frame_builder__tallies(const struct frame_builder *fb, const uint64_t **calls,
			      const uint64_t **children)
{
	*calls = fb->tally.calls;
	*children = fb->tally.children;
	return fb->tally.n;
}

/* The call ending on t's top: one more call of its function, and one more
 * direct child of its caller's. */
static void tally_leave(struct frame_builder *fb, const struct fb_thread *t)
{
	uint32_t fid = t->stack[t->depth - 1].fid;

	fid_tally__leave(&fb->tally, fid, t->depth > 1 ? t->stack[t->depth - 2].fid : 0,
			 t->depth > 1);
}

int frame_builder__leave(struct frame_builder *fb, struct fb_thread *t, uint64_t ts,
			 enum frame_end how)
{
	struct frame *f;
	uint64_t cpu;
	int err;

	if (!t->depth) {
		fb->unmatched++;
		return 0;
	}
	f = &t->stack[t->depth - 1];
	cpu = cpu_at(t, ts);
	f->cpu_ns = cpu > f->cpu_begin_ns ? cpu - f->cpu_begin_ns : 0;
	f->costs = t->costs ? cost_stack__leave(t->costs, t->depth) : NULL;
	if (ts > t->last_ts)
		t->last_ts = ts;
	if (how == FRAME_INFERRED)
		fb->inferred++;
	else if (how == FRAME_UNFINISHED)
		fb->unfinished++;
	note_leaf(fb, t, ts, how);
	if (fb->tallying)
		tally_leave(fb, t);
	err = fb->sink.ops->leave
		      ? fb->sink.ops->leave(fb->sink.ctx, &t->th, t->stack, t->depth, ts, how)
		      : 0;
	frame_values__free(f->values);
	t->depth--;
	return err;
}

int frame_builder__cost(struct fb_thread *t, enum cost_kind kind, uint64_t n, uint32_t nr)
{
	return cost_stack__add(&t->costs, t->depth, kind, n, nr);
}

int frame_builder__value(struct fb_thread *t, const char *name, enum value_kind kind, uint64_t raw,
			 const char *text)
{
	if (!t->depth)
		return 0;
	return frame_values__add(&t->stack[t->depth - 1].values, name, kind, raw, text);
}

uint32_t frame_builder__depth(const struct fb_thread *t)
{
	return t->depth;
}

const struct frame *frame_builder__top(const struct fb_thread *t)
{
	return t->depth ? &t->stack[t->depth - 1] : NULL;
}

const struct frame *frame_builder__frame(const struct fb_thread *t, uint32_t i)
{
	return i < t->depth ? &t->stack[i] : NULL;
}

int frame_builder__elided(struct frame_builder *fb, struct fb_thread *t, uint32_t fid,
			  uint64_t calls, uint64_t total_ns)
{
	if (!fb->sink.ops->elided)
		return 0;
	return fb->sink.ops->elided(fb->sink.ctx, &t->th, fid, calls, total_ns);
}

int frame_builder__gap(struct frame_builder *fb, const struct trace_gap *g)
{
	return fb->sink.ops->gap ? fb->sink.ops->gap(fb->sink.ctx, g) : 0;
}

/* Only the slot that is live for (pid, tid) is unmapped: an older one
 * add_thread shadowed is no longer there. */
static void retire(struct frame_builder *fb, struct fb_thread *t)
{
	uint64_t *idx = u64map__find(&fb->live, thread_key(t->th.pid, t->th.tid));
	uint64_t *proc = u64map__find(&fb->live_proc, (uint64_t)t->th.pid + 1);

	t->ended = true;
	if (idx && *idx == (uint64_t)t->th.index + 1)
		*idx = 0;
	if (t->th.tid == t->th.pid && proc && *proc == (uint64_t)t->th.process_index + 1)
		*proc = 0;
	if (fb->cached == t)
		fb->cached = NULL;
	free(t->stack);
	t->stack = NULL;
	t->cap = 0;
	cost_stack__free(t->costs);
	t->costs = NULL;
}

int frame_builder__end_thread(struct frame_builder *fb, struct fb_thread *t, uint64_t ts)
{
	int err;

	while (t->depth)
		if ((err = frame_builder__leave(fb, t, ts, FRAME_UNFINISHED)))
			return err;
	if (t->ended)
		return 0;
	retire(fb, t);
	if (!fb->sink.ops->thread_end)
		return 0;
	return fb->sink.ops->thread_end(fb->sink.ctx, &t->th);
}

int frame_builder__finish(struct frame_builder *fb, struct trace_stats *st)
{
	struct trace_stats local = { 0 };
	int err;

	if (fb->finished)
		return -EALREADY;
	fb->finished = true;
	for (uint32_t i = 0; i < fb->nthreads; i++)
		if ((err = frame_builder__end_thread(fb, fb->threads[i], fb->threads[i]->last_ts)))
			return err;
	if (!st)
		st = &local;
	st->unmatched_exits += fb->unmatched;
	st->inferred_exits += fb->inferred;
	st->unfinished += fb->unfinished;
	st->switches_inferred += fb->resumed;
	if (!st->probe_cost_ns && fb->leaf_min != UINT64_MAX)
		st->probe_cost_ns = fb->leaf_min;
	if (fb->sink.ops->stats && (err = fb->sink.ops->stats(fb->sink.ctx, st)))
		return err;
	return fb->sink.ops->finish ? fb->sink.ops->finish(fb->sink.ctx) : 0;
}
