// SPDX-License-Identifier: MIT
/* costs.c: record --costs's records (bpf/costs.h) onto the frames of the
 * thread that spent them (model/frame_costs.h).  A record comes in the
 * spending thread's own order among its calls, so the innermost frame open
 * when it is read is the one open when it happened.  A thread the trace
 * has not met yet (no traced call so far) has no frame to charge: its
 * costs are outside every function, and go uncounted like its time. */
#include "record/collect/collector_int.h"

void collector__costs(struct collector *c)
{
	c->costs = true;
	c->st.costs = 1;
}

int costs__record(struct collector *c, const struct sled_cost *e)
{
	struct fb_thread *t = frame_builder__find(c->fb, e->h.tgid, e->h.tid);
	int err;

	if (!t)
		return 0;
	switch (e->what) {
	case SLED_COST_ALLOC:
		if ((err = frame_builder__cost(t, COST_ALLOCS, 1, 0)))
			return err;
		return frame_builder__cost(t, COST_ALLOC_BYTES, e->amount, 0);
	case SLED_COST_FREE:
		return frame_builder__cost(t, COST_FREES, 1, 0);
	case SLED_COST_SYSCALL:
		return frame_builder__cost(t, COST_SYSCALLS, 1, e->nr);
	case SLED_COST_FAULT:
		return frame_builder__cost(t, COST_PAGE_FAULTS, 1, 0);
	default:
		return 0; /* a kind this collector does not know */
	}
}

/* A thread that leaves its CPU to wait (not preempted, not stopped: a
 * hold is sledtrace's doing) switched voluntarily. */
int costs__switched(struct collector *c, struct fb_thread *t, enum thread_state state)
{
	if (!c->costs || (state != THREAD_SLEEPING && state != THREAD_BLOCKED))
		return 0;
	return frame_builder__cost(t, COST_VOLUNTARY_SWITCHES, 1, 0);
}
