// SPDX-License-Identifier: MIT
/* causes.c: what made a traced thread run a frame (docs/DESIGN.md,
 * "Causes"): spawns, wakeups and hand-offs, turned into the caused
 * frame's cause and a point in the causing one.
 *
 * A thread the collector has not met yet (it made no traced call) is not
 * made for its cause: its names may not be final (a new thread is named
 * as its creator until it renames itself), so its cause waits in `early`
 * until the thread is met (causes__met) or ends. */
#include <errno.h>
#include <stdlib.h>

#include "record/collect/collector_int.h"
#include "util/grow.h"
#include "util/u64map.h"

struct early_cause {
	uint64_t key; /* (tgid << 32 | tid) + 1; 0: a free slot */
	uint64_t cause, flow;
	enum frame_cause kind;
};

struct causes_early {
	struct u64map idx; /* key -> slot + 1, 0: none */
	struct early_cause *slot;
	size_t n, cap;
	size_t *free; /* room for every slot */
	size_t nfree, fcap;
};

static uint64_t key_of(uint32_t tgid, uint32_t tid)
{
	return ((uint64_t)tgid << 32 | tid) + 1;
}

static struct early_cause *early_find(struct collector *c, uint32_t tgid, uint32_t tid)
{
	uint64_t i;

	if (!c->early || !u64map__get(&c->early->idx, key_of(tgid, tid), &i) || !i)
		return NULL;
	return &c->early->slot[i - 1];
}

static void early_drop(struct collector *c, struct early_cause *ec)
{
	struct causes_early *e = c->early;

	u64map__put(&e->idx, ec->key, 0); /* overwrites: cannot fail */
	ec->key = 0;
	e->free[e->nfree++] = (size_t)(ec - e->slot);
}

static int early_put(struct collector *c, uint32_t tgid, uint32_t tid, const struct early_cause *ec)
{
	struct early_cause *at = early_find(c, tgid, tid);
	struct causes_early *e;
	size_t i;
	int err;

	if (!c->early && !(c->early = calloc(1, sizeof(*c->early))))
		return -ENOMEM;
	e = c->early;
	if (!at) {
		if (!e->nfree &&
		    ((err = grow__room((void **)&e->slot, &e->cap, e->n, sizeof(*e->slot))) ||
		     (err = grow__room((void **)&e->free, &e->fcap, e->n, sizeof(*e->free)))))
			return err;
		i = e->nfree ? e->free[--e->nfree] : e->n++;
		if ((err = u64map__put(&e->idx, key_of(tgid, tid), i + 1)))
			return err;
		at = &e->slot[i];
	}
	*at = *ec;
	at->key = key_of(tgid, tid);
	return 0;
}

void causes__met(struct collector *c, struct cthread *t)
{
	const struct trace_thread *th = frame_builder__info(t->fbt);
	struct early_cause *ec = early_find(c, th->pid, th->tid);

	if (!ec)
		return;
	frame_builder__caused(t->fbt, ec->cause, ec->flow, ec->kind);
	early_drop(c, ec);
}

/* A forked child that execs at once (posix_spawn, a shell) runs its new
 * program because of the frame that forked it: the spawn carries over. */
int causes__exec(struct collector *c, struct cthread *t)
{
	const struct trace_thread *th = frame_builder__info(t->fbt);
	struct early_cause ec = { .kind = frame_builder__pending(t->fbt) };

	if (ec.kind == CAUSE_NONE)
		return 0;
	frame_builder__pending_cause(t->fbt, &ec.cause, &ec.flow);
	return early_put(c, th->pid, th->tid, &ec);
}

void causes__gone(struct collector *c, uint32_t tgid, uint32_t tid)
{
	struct early_cause *ec = early_find(c, tgid, tid);

	if (ec)
		early_drop(c, ec);
}

void causes__free(struct collector *c)
{
	handoffs__free(c->handoffs);
	if (!c->early)
		return;
	u64map__clear(&c->early->idx);
	free(c->early->slot);
	free(c->early->free);
	free(c->early);
}

/* The cause a thread will take: pending on its frames, or early. */
static enum frame_cause pending(struct collector *c, const struct sled_head *h,
				const struct cthread *to)
{
	const struct early_cause *ec;

	if (to)
		return frame_builder__pending(to->fbt);
	ec = early_find(c, h->tgid, h->tid);
	return ec ? ec->kind : CAUSE_NONE;
}

/* from, with a frame open, made (tgid, tid) run, a thread not met yet. */
static int cause_early(struct collector *c, struct cthread *from, const struct sled_head *h,
		       enum frame_cause kind)
{
	struct cause_point cp = { .ts = h->ts,
				  .flow = frame_builder__new_flow(c->fb),
				  .kind = kind };
	struct early_cause ec = { .cause = frame_builder__top(from->fbt)->id,
				  .flow = cp.flow,
				  .kind = kind };
	int err = early_put(c, h->tgid, h->tid, &ec);

	return err ? err : frame_builder__cause_point(c->fb, from->fbt, &cp);
}

/* (from_tgid, from_tid) made the head's thread run: its next frame has the
 * causing thread's innermost frame as cause, if it had one open; a wakeup
 * by nothing traced leaves the next frame without one.  A new thread's or
 * process's first frame is its spawn's, whatever woke it before it ran
 * one: a lock its start took, or the hold that resumed a forked child. */
int causes__record(struct collector *c, const struct sled_cause *e)
{
	struct cthread *from = NULL, *to = collector__find(c, e->h.tgid, e->h.tid);
	bool wake = e->how != SLED_CAUSE_SPAWN;
	enum frame_cause kind = wake ? CAUSE_WAKEUP : CAUSE_SPAWN;
	struct early_cause *ec;
	int err;

	c->st.wakeups += wake;
	c->st.wakeups_from_interrupts += e->how == SLED_CAUSE_IRQ;
	c->st.wakeups_from_outside += e->how == SLED_CAUSE_OUTSIDE;
	c->st.wakeups_uninterruptible += e->how == SLED_CAUSE_KERNEL_WAIT;
	if (e->how == SLED_CAUSE_KERNEL_WAIT)
		return 0;
	if (wake && pending(c, &e->h, to) == CAUSE_SPAWN)
		return 0;
	if (e->how == SLED_CAUSE_SPAWN || e->how == SLED_CAUSE_WAKE)
		from = collector__find(c, e->from_tgid, e->from_tid);
	if (!from || !frame_builder__depth(from->fbt)) {
		if (to)
			frame_builder__uncaused(to->fbt);
		else if ((ec = early_find(c, e->h.tgid, e->h.tid)))
			early_drop(c, ec);
		return 0;
	}
	if (to)
		err = frame_builder__cause(c->fb, from->fbt, to->fbt, e->h.ts, kind);
	else if (!(err = cause_early(c, from, &e->h, kind)))
		err = 1;
	if (err <= 0)
		return err;
	*(wake ? &c->st.wakeups_linked : &c->st.spawns_linked) += 1;
	return 0;
}

int causes__fork(struct collector *c, struct cthread *parent, struct cthread *child, uint64_t ts)
{
	int err = frame_builder__cause(c->fb, parent->fbt, child->fbt, ts, CAUSE_SPAWN);

	if (err > 0)
		c->st.spawns_linked++;
	return err < 0 ? err : 0;
}

/* A --flow sending call (on top of t now) passed value: the receiving
 * call that passes it too will have this frame as cause. */
static int flow_send(struct collector *c, struct cthread *t, uint64_t ts, uint64_t value)
{
	struct handoff h = { .value = value, .flow = frame_builder__new_flow(c->fb) };
	const struct frame *top = frame_builder__top(t->fbt);

	if (!value || !top || (!c->handoffs && handoffs__new(&c->handoffs)))
		return value && top ? -ENOMEM : 0;
	h.cause = top->id;
	handoffs__send(c->handoffs, &h);
	c->st.handoffs++;
	return frame_builder__cause_point(
		c->fb, t->fbt,
		&(struct cause_point){ .ts = ts, .flow = h.flow, .kind = CAUSE_HANDOFF });
}

/* A --flow receiving call is about to begin with value: a send waiting
 * with it is its cause. */
static void flow_receive(struct collector *c, struct cthread *t, uint64_t value)
{
	struct handoff h;

	if (!value || !c->handoffs || !handoffs__receive(c->handoffs, value, &h))
		return;
	frame_builder__caused(t->fbt, h.cause, h.flow, CAUSE_HANDOFF);
	c->st.handoffs_linked++;
}

/* How far below its innermost traced frame's slot a thread's stack may
 * still hold that frame's data (frames of untraced callees included). */
#define STACK_BELOW (1ull << 20)

/* The open frame of another thread whose stack memory holds addr: the
 * innermost one whose slot lies above it (the frames below it were
 * entered later, at lower addresses).  Its depth, 0 when none. */
static uint32_t stack_owner(struct collector *c, const struct cthread *self, uint64_t addr,
			    struct cthread **owner)
{
	for (uint32_t idx = 0; idx < frame_builder__nthreads(c->fb); idx++) {
		struct cthread *o = thread_slots__peek(&c->threads, idx);
		uint32_t d = o && o != self ? frame_builder__depth(o->fbt) : 0, lo = 0, hi;
		uint64_t outer = d ? frame_builder__frame(o->fbt, 0)->sp : 0;

		if (!d || addr >= outer || addr + STACK_BELOW < frame_builder__top(o->fbt)->sp)
			continue;
		for (hi = d; hi - lo > 1;) { /* frame lo's slot is above addr */
			uint32_t mid = lo + (hi - lo) / 2;

			*(frame_builder__frame(o->fbt, mid)->sp > addr ? &lo : &hi) = mid;
		}
		*owner = o;
		return lo + 1;
	}
	return 0;
}

/* A --flow=stack=RECV:M call is about to begin with addr: when it points
 * into another thread's stack, the frame there that holds it made it. */
static int flow_receive_stack(struct collector *c, struct cthread *t, uint64_t ts, uint64_t addr)
{
	struct cause_point cp = { .ts = ts, .kind = CAUSE_HANDOFF };
	struct cthread *o = NULL;

	if (!addr || !(cp.at_depth = stack_owner(c, t, addr, &o)))
		return 0;
	cp.flow = frame_builder__new_flow(c->fb);
	frame_builder__caused(t->fbt, frame_builder__frame(o->fbt, cp.at_depth - 1)->id, cp.flow,
			      CAUSE_HANDOFF);
	c->st.handoffs_linked++;
	return frame_builder__cause_point(c->fb, o->fbt, &cp);
}

int causes__receive(struct collector *c, struct cthread *t, const struct sled_capture *e,
		    const struct capture_fn *cap)
{
	if (cap->flow_recv < 0)
		return 0;
	if (cap->flow_by_stack)
		return flow_receive_stack(c, t, e->h.ts, e->val[cap->flow_recv]);
	flow_receive(c, t, e->val[cap->flow_recv]);
	return 0;
}

int causes__send(struct collector *c, struct cthread *t, const struct sled_capture *e,
		 const struct capture_fn *cap)
{
	return cap->flow_send < 0 ? 0 : flow_send(c, t, e->h.ts, e->val[cap->flow_send]);
}
