/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* sched.h: the scheduler's switches of traced threads, for on-CPU time
 * and thread states (docs/DESIGN.md, "On-CPU time").  Included by
 * sledtrace.bpf.c after notice(). */
#ifndef SLEDTRACE_BPF_SCHED_H
#define SLEDTRACE_BPF_SCHED_H

#include "task_state.h"

/* What prev is once off the CPU.  __state as the switch reads it: a
 * wakeup that raced the switch left it running, which is what it is. */
static __always_inline __u32 state_off(bool preempt, struct task_struct *prev)
{
	unsigned int s = prev->__state;

	if (preempt || s == TASK_RUNNING)
		return SLED_STATE_RUNNABLE;
	if (s & TASK_STOPPED_OR_TRACED)
		return SLED_STATE_STOPPED;
	if (s & TASK_UNINTERRUPTIBLE)
		return SLED_STATE_BLOCKED;
	return SLED_STATE_SLEEPING;
}

static __always_inline void send_switch(struct task_struct *task, __u32 state)
{
	__u32 tgid = task->tgid;
	struct sled_switch *s;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return;
	/* the calls it made come before it leaves the CPU */
	if (state != SLED_STATE_RUNNING)
		kf_settle(tgid, task->pid);
	s = notice(SLED_KIND_SWITCH, sizeof(*s), tgid, task->pid, SLED_CTR_SWITCH_DROPS);
	if (!s)
		return;
	s->state = state;
	s->cpu = bpf_get_smp_processor_id();
	send(s);
}

/* Every context switch on the machine runs this; a thread outside the
 * traced processes costs a map lookup and no event (tp_btf: the tasks are
 * trusted pointers, read with plain loads, no helper call).  prev's record is
 * queued before next's, and a thread cannot take a CPU before the one it
 * left has switched away from it, so each thread's records arrive in its
 * own order, among its calls (docs/DESIGN.md, "On-CPU time"). */
SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	if (no_events)
		return 0;
	send_switch(prev, state_off(preempt, prev));
	send_switch(next, SLED_STATE_RUNNING);
	return 0;
}

#endif
