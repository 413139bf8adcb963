// SPDX-License-Identifier: MIT
/* critical_path.c: see critical_path.h.  Two reads: the first finds the
 * slowest matching call; the second keeps, for the window of that call
 * only, every thread's changes of innermost frame and of state and the
 * wakeups between traced threads (memory grows with the window, not the
 * trace).  Threads are named by uid (frames.h), which wakeups carry. */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/critical_path.h"
#include "format/perfetto/perfetto_reader.h"
#include "format/text_out.h"
#include "util/grow.h"
#include "util/u64map.h"

/* What a part of the path is when it is no function. */
enum {
	WHAT_NO_FRAME = 0,		/* running, no traced frame open */
	WHAT_CPU_WAIT = UINT32_MAX - 1, /* runnable, waiting for a CPU */
	WHAT_UNCAUSED = UINT32_MAX - 2, /* asleep; nothing traced woke it */
	WHAT_WAKE_LAG = UINT32_MAX - 3, /* woken, not yet running */
};
#define MAX_HOPS 64

struct change {
	uint64_t ts;
	uint32_t v; /* a fid, or an enum thread_state */
};

struct changes {
	struct change *v;
	size_t n, cap;
};

struct cp_thread {
	bool seen;
	uint32_t tid;
	char *name;
	uint32_t fid0, state0; /* at the window's start */
	struct changes fids, states;
};

struct wake {
	uint64_t ts;
	uint32_t from, to;
	size_t seq; /* its place in the file: of two at one ns, the first counts */
};

struct part {
	uint32_t uid, what;
	uint64_t ns;
};

struct call {
	uint64_t b, e, dur;
	uint32_t uid, fid;
};

struct cp {
	regex_t re;
	char **names; /* by fid */
	bool *match;
	uint32_t nfns;
	/* the first read: the slowest calls, slowest first */
	uint64_t calls;
	struct call *top;
	size_t ntop, want;
	/* the second: the window that holds them all */
	uint64_t b, e;
	struct cp_thread *th; /* by uid */
	uint32_t nth;
	struct wake *wakes;
	size_t nwakes, capw;
	struct u64map part_idx; /* uid << 32 | what -> index + 1 */
	struct part *parts;
	size_t nparts, capp;
	int err;
};

static int cp_function(void *ctx, const struct trace_function *fn)
{
	struct cp *c = ctx;

	if (fn->id >= c->nfns) {
		uint32_t n = fn->id + 64;
		char **names = realloc(c->names, n * sizeof(*names));
		bool *m;

		if (!names)
			return -ENOMEM;
		c->names = names;
		if (!(m = realloc(c->match, n * sizeof(*m))))
			return -ENOMEM;
		c->match = m;
		memset(names + c->nfns, 0, (n - c->nfns) * sizeof(*names));
		memset(m + c->nfns, 0, (n - c->nfns) * sizeof(*m));
		c->nfns = n;
	}
	if (c->names[fn->id])
		return 0;
	if (!(c->names[fn->id] = strdup(fn->name ? fn->name : "?")))
		return -ENOMEM;
	c->match[fn->id] = !regexec(&c->re, c->names[fn->id], 0, NULL, 0);
	return 0;
}

static int find_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		      uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct cp *c = ctx;
	const struct frame *f = &stack[depth - 1];
	uint64_t dur = end_ns > f->begin_ns ? end_ns - f->begin_ns : 0;
	size_t i;

	(void)how;
	if (f->fid >= c->nfns || !c->match[f->fid])
		return 0;
	c->calls++;
	if (c->ntop == c->want && dur <= c->top[c->ntop - 1].dur)
		return 0;
	i = c->ntop < c->want ? c->ntop++ : c->ntop - 1;
	for (; i > 0 && c->top[i - 1].dur < dur; i--)
		c->top[i] = c->top[i - 1];
	c->top[i] = (struct call){ f->begin_ns, end_ns, dur, th->uid, f->fid };
	return 0;
}

static struct cp_thread *thread_of(struct cp *c, uint32_t uid)
{
	if (uid >= c->nth) {
		uint32_t n = uid + 16;
		struct cp_thread *v = realloc(c->th, n * sizeof(*v));

		if (!v)
			return NULL;
		memset(v + c->nth, 0, (n - c->nth) * sizeof(*v));
		c->th = v;
		c->nth = n;
	}
	return &c->th[uid];
}

/* th by its uid, named on first sight (not at thread(): a reader learns
 * a thread's uid after it has announced it). */
static struct cp_thread *note(struct cp *c, const struct trace_thread *th)
{
	struct cp_thread *t = thread_of(c, th->uid);

	if (!t || t->seen)
		return t;
	t->seen = true;
	t->tid = th->tid;
	return (t->name = strdup(th->name ? th->name : "?")) ? t : NULL;
}

/* A change at ts of what th has: before the window it is the start's. */
static int change(struct cp *c, const struct trace_thread *th, uint64_t ts, uint32_t v, bool state)
{
	struct cp_thread *t = note(c, th);
	struct changes *l;

	if (!t)
		return -ENOMEM;
	if (ts <= c->b) {
		*(state ? &t->state0 : &t->fid0) = v;
		return 0;
	}
	if (ts >= c->e)
		return 0;
	l = state ? &t->states : &t->fids;
	if (grow__room((void **)&l->v, &l->cap, l->n, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = (struct change){ ts, v };
	return 0;
}

static int win_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth)
{
	return change(ctx, th, stack[depth - 1].begin_ns, stack[depth - 1].fid, false);
}

static int win_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	(void)how;
	return change(ctx, th, end_ns, depth > 1 ? stack[depth - 2].fid : WHAT_NO_FRAME, false);
}

static int win_sched(void *ctx, const struct trace_thread *th, uint64_t ts, enum thread_state state)
{
	return change(ctx, th, ts, (uint32_t)state, true);
}

static int win_cause(void *ctx, const struct trace_thread *th, const struct frame *stack,
		     uint32_t depth, const struct cause_point *cp)
{
	struct cp *c = ctx;

	(void)stack;
	(void)depth;
	if (cp->kind != CAUSE_WAKEUP || !cp->to_known || cp->ts <= c->b || cp->ts >= c->e)
		return 0;
	if (!note(c, th))
		return -ENOMEM;
	if (grow__room((void **)&c->wakes, &c->capw, c->nwakes, sizeof(*c->wakes)))
		return -ENOMEM;
	c->wakes[c->nwakes] = (struct wake){ cp->ts, th->uid, cp->to_uid, c->nwakes };
	c->nwakes++;
	return 0;
}

static void add(struct cp *c, uint32_t uid, uint32_t what, uint64_t ns)
{
	uint64_t key = ((uint64_t)uid << 32 | what) + 1, i;

	if (!ns || c->err)
		return;
	if (!u64map__get(&c->part_idx, key, &i)) {
		if (grow__room((void **)&c->parts, &c->capp, c->nparts, sizeof(*c->parts)) ||
		    u64map__put(&c->part_idx, key, c->nparts + 1)) {
			c->err = -ENOMEM;
			return;
		}
		c->parts[c->nparts++] = (struct part){ uid, what, 0 };
		i = c->nparts;
	}
	c->parts[i - 1].ns += ns;
}

/* The last change of l before ts (its value and time), else v0 since b. */
static uint32_t at(const struct changes *l, uint32_t v0, uint64_t b, uint64_t ts, uint64_t *since)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) { /* first change at or after ts */
		size_t mid = lo + (hi - lo) / 2;

		if (l->v[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*since = lo ? l->v[lo - 1].ts : b;
	return lo ? l->v[lo - 1].v : v0;
}

/* [lo, hi] ran on t: to the innermost frames it ran in. */
static void running(struct cp *c, uint32_t uid, uint64_t lo, uint64_t hi)
{
	const struct cp_thread *t = &c->th[uid];
	uint64_t since, cur = hi;

	while (cur > lo) {
		uint32_t fid = at(&t->fids, t->fid0, c->b, cur, &since);
		uint64_t from = since > lo ? since : lo;

		add(c, uid, fid, cur - from);
		cur = from;
	}
}

/* By woken thread, then time; at one time the first in the file last, so
 * that a search from the end meets it first. */
static int by_woken(const void *a, const void *b)
{
	const struct wake *x = a, *y = b;

	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? 1 : x->seq > y->seq ? -1 : 0;
}

/* The latest wakeup of uid in [lo, hi] by a thread the window knows
 * (c->wakes sorted by by_woken): a search, as walks ask for many. */
static const struct wake *woken_in(const struct cp *c, uint32_t uid, uint64_t lo, uint64_t hi)
{
	size_t l = 0, h = c->nwakes;

	while (l < h) { /* the first wakeup past (uid, hi) */
		size_t mid = l + (h - l) / 2;
		const struct wake *w = &c->wakes[mid];

		if (w->to < uid || (w->to == uid && w->ts <= hi))
			l = mid + 1;
		else
			h = mid;
	}
	for (; l > 0 && c->wakes[l - 1].to == uid && c->wakes[l - 1].ts >= lo; l--)
		if (c->wakes[l - 1].from < c->nth)
			return &c->wakes[l - 1];
	return NULL;
}

/* Where [lo, hi] of uid's time went, walking back from hi. */
static void walk(struct cp *c, uint32_t uid, uint64_t lo, uint64_t hi, unsigned hops)
{
	const struct cp_thread *t = uid < c->nth ? &c->th[uid] : NULL;
	uint64_t since, cur = hi;

	while (t && cur > lo && !c->err) {
		uint32_t st = at(&t->states, t->state0, c->b, cur, &since);
		uint64_t from = since > lo ? since : lo;
		const struct wake *w;

		if (st == THREAD_RUNNING) {
			running(c, uid, from, cur);
		} else if (st == THREAD_RUNNABLE) {
			add(c, uid, WHAT_CPU_WAIT, cur - from);
		} else if (hops < MAX_HOPS && (w = woken_in(c, uid, from, cur))) {
			add(c, uid, WHAT_WAKE_LAG, cur - w->ts);
			walk(c, w->from, from, w->ts, hops + 1);
		} else {
			add(c, uid, WHAT_UNCAUSED, cur - from);
		}
		cur = from;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

static const char *what_name(const struct cp *c, uint32_t what)
{
	switch (what) {
	case WHAT_NO_FRAME:
		return "(running, no traced frame)";
	case WHAT_CPU_WAIT:
		return "(waiting for a CPU)";
	case WHAT_UNCAUSED:
		return "(asleep: woken by an interrupt or outside the trace)";
	case WHAT_WAKE_LAG:
		return "(woken, not yet running)";
	default:
		return what < c->nfns && c->names[what] ? c->names[what] : "?";
	}
}

static void print(const struct cp *c, const struct call *k, size_t rank, bool json, FILE *out)
{
	const struct cp_thread *t = &c->th[k->uid];
	double d = k->dur ? (double)k->dur : 1;

	if (json) {
		fprintf(out, "{\"function\":");
		text_out__json(out, c->names[k->fid]);
		fprintf(out,
			",\"calls\":%" PRIu64 ",\"rank\":%zu,\"tid\":%u,\"begin_ns\":%" PRIu64
			",\"duration_ns\":%" PRIu64 ",\"parts\":[",
			c->calls, rank + 1, t->tid, k->b, k->dur);
		for (size_t i = 0; i < c->nparts; i++) {
			fprintf(out, "%s{\"tid\":%u,\"thread\":", i ? "," : "",
				c->th[c->parts[i].uid].tid);
			text_out__json(out, c->th[c->parts[i].uid].name);
			fprintf(out, ",\"what\":");
			text_out__json(out, what_name(c, c->parts[i].what));
			fprintf(out, ",\"ns\":%" PRIu64 "}", c->parts[i].ns);
		}
		fprintf(out, "]}\n");
		return;
	}
	fprintf(out, "%scritical path of %s: the %s of %" PRIu64 " calls, %.3f ms on %s (%u)\n",
		rank ? "\n" : "", c->names[k->fid], rank ? "next slowest" : "slowest", c->calls,
		(double)k->dur / 1e6, t->name, t->tid);
	fprintf(out, "%12s %7s  %-24s %s\n", "TIME_MS", "SHARE", "THREAD", "WHAT");
	for (size_t i = 0; i < c->nparts; i++) {
		const struct part *p = &c->parts[i];
		char who[64];

		snprintf(who, sizeof(who), "%s (%u)", c->th[p->uid].name, c->th[p->uid].tid);
		fprintf(out, "%12.3f %6.1f%%  %-24s %s\n", (double)p->ns / 1e6, 100.0 * p->ns / d,
			who, what_name(c, p->what));
	}
}

/* The path of call k, printed. */
static int path_of(struct cp *c, const struct call *k, size_t rank, bool json, FILE *out)
{
	c->nparts = 0;
	u64map__clear(&c->part_idx);
	if (k->uid < c->nth)
		walk(c, k->uid, k->b, k->e, 0);
	if (c->err)
		return c->err;
	qsort(c->parts, c->nparts, sizeof(*c->parts), by_time);
	print(c, k, rank, json, out);
	return ferror(out) ? -EIO : 0;
}

static void cp_free(struct cp *c)
{
	for (uint32_t i = 0; i < c->nfns; i++)
		free(c->names[i]);
	for (uint32_t i = 0; i < c->nth; i++) {
		free(c->th[i].name);
		free(c->th[i].fids.v);
		free(c->th[i].states.v);
	}
	free(c->names);
	free(c->match);
	free(c->th);
	free(c->wakes);
	free(c->parts);
	free(c->top);
	u64map__clear(&c->part_idx);
	regfree(&c->re);
}

static const struct frame_sink_ops find_ops = { .function = cp_function, .leave = find_leave };
static const struct frame_sink_ops window_ops = {
	.enter = win_enter,
	.leave = win_leave,
	.sched = win_sched,
	.cause = win_cause,
};

int critical_path__report(const char *path, const char *regex, size_t ncalls, int json, FILE *out,
			  char *err, size_t errlen)
{
	struct cp c = { .want = ncalls ? ncalls : 1 };
	struct frame_sink sink = { &find_ops, &c };
	int ret;

	if (regcomp(&c.re, regex, REG_EXTENDED | REG_NOSUB)) {
		snprintf(err, errlen, "bad --critical-path regex '%s'", regex);
		return -EINVAL;
	}
	if (!(c.top = calloc(c.want, sizeof(*c.top))))
		ret = -ENOMEM;
	else
		ret = perfetto_reader__read(path, &sink, err, errlen);
	if (!ret && !c.calls) {
		snprintf(err, errlen, "%s: no call of a function matching '%s'", path, regex);
		ret = -ENOENT;
	}
	for (size_t i = 0; !ret && i < c.ntop; i++) {
		if (!i || c.top[i].b < c.b)
			c.b = c.top[i].b;
		if (c.top[i].e > c.e)
			c.e = c.top[i].e;
	}
	sink.ops = &window_ops;
	if (!ret)
		ret = perfetto_reader__read(path, &sink, err, errlen);
	if (!ret)
		qsort(c.wakes, c.nwakes, sizeof(*c.wakes), by_woken);
	for (size_t i = 0; !ret && i < c.ntop; i++)
		ret = path_of(&c, &c.top[i], i, json, out);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (ret == -EIO)
		snprintf(err, errlen, "cannot write output");
	cp_free(&c);
	return ret;
}
