/* SPDX-License-Identifier: MIT */
/* collector_int.h: the collector's state, shared by collector.c (calls,
 * threads, forks) and causes.c (spawns, wakeups, hand-offs), and nothing
 * else. */
#ifndef SLEDTRACE_COLLECTOR_INT_H
#define SLEDTRACE_COLLECTOR_INT_H

#include "model/thread_slots.h"
#include "record/collect/collector.h"
#include "record/collect/handoffs.h"
#include "record/collect/idents.h"

/* Stack pointers further apart than this are on different stacks (signal
 * alternate stack, coroutine): no inference across them. */
#define SAME_STACK_SPAN (256ull << 20)
#define TAIL_PENDING 8

struct tail_pending {
	uint64_t sp;
	uint64_t owed; /* chained returns still to come at sp */
};

/* The collector's own per-thread state, in the builder thread's slot. */
struct cthread {
	struct fb_thread *fbt;
	struct tail_pending pend[TAIL_PENDING];
	unsigned npend;
};

struct collector {
	struct frame_builder *fb;
	struct collector_object *objs;
	uint32_t nobjs;
	struct thread_slots threads; /* struct cthread by thread index */
	struct trace_stats st;
	uint8_t *hit; /* one bit per trace function id */
	uint32_t nfids;
	uint64_t nhit;
	struct idents *ids;
	struct collector_names names;
	bool causes;		    /* link forks to their parent's frame (collector__causes) */
	bool costs;		    /* record --costs: voluntary switches count (costs.c) */
	struct handoffs *handoffs;  /* --flow's values in flight; made at the first send */
	struct causes_early *early; /* causes of threads not met yet (causes.c) */
};

/* The live thread's state, or NULL when (tgid, tid) has none. */
struct cthread *collector__find(struct collector *c, uint32_t tgid, uint32_t tid);
/* The live thread's state, made (and named) on first sight. */
int collector__thread_for(struct collector *c, uint32_t tgid, uint32_t tid, struct cthread **out);

/* causes.c */
/* A cause record (kind SLED_KIND_CAUSE). */
int causes__record(struct collector *c, const struct sled_cause *e);
/* A forked child's next frame has its parent's innermost frame as cause. */
int causes__fork(struct collector *c, struct cthread *parent, struct cthread *child, uint64_t ts);
/* A thread met for the first time takes the cause it was given before. */
void causes__met(struct collector *c, struct cthread *t);
/* A --capture call of cap is about to begin on t (record --flow): a
 * receiver gets its cause. */
int causes__receive(struct collector *c, struct cthread *t, const struct sled_capture *e,
		    const struct capture_fn *cap);
/* ... and has begun: a sender's value waits for its receiver. */
int causes__send(struct collector *c, struct cthread *t, const struct sled_capture *e,
		 const struct capture_fn *cap);
/* t exec'd: the cause its next frame had waits for the new program's. */
int causes__exec(struct collector *c, struct cthread *t);
/* (tgid, tid) ended: a cause it never took goes. */
void causes__gone(struct collector *c, uint32_t tgid, uint32_t tid);
void causes__free(struct collector *c);

/* costs.c */
/* A cost record (kind SLED_KIND_COST). */
int costs__record(struct collector *c, const struct sled_cost *e);
/* t switched to state: a voluntary switch counts. */
int costs__switched(struct collector *c, struct fb_thread *t, enum thread_state state);

#endif
