/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* causes.h: what made a traced thread run - which thread created it or
 * woke it - recorded where it happens, in the causing thread's context
 * (docs/DESIGN.md, "Causes").  Included by sledtrace.bpf.c after kfilter.h
 * and notice(), before on_fork, which sends spawns through it. */
#ifndef SLEDTRACE_BPF_CAUSES_H
#define SLEDTRACE_BPF_CAUSES_H

#include "task_state.h"

/* Set by the collector before load: record --no-causes clears it. */
const volatile bool causes_on = false;

/* Whether this runs on the current task's own kernel stack: a wakeup
 * from there is the task's doing.  Interrupts, softirqs and NMIs run on
 * stacks of their own (x86-64 and arm64 both switch to a per-CPU one), and
 * `current` there is merely whom they interrupted.  The stack pointer
 * tells without reading the preempt count, which only a kernel built with
 * every symbol in kallsyms lets BPF read.  A task's stack is THREAD_SIZE
 * bytes from task->stack: 16 KiB, 32 KiB with KASAN, which bounds it.
 * An interrupt that came from user mode is the exception: it runs on the
 * task's stack (there is nothing on it to protect), and the registers it
 * saved there say it was one. */
#define TASK_STACK_MAX (32u << 10)

static __always_inline bool in_interrupt(void)
{
	/* a trusted pointer: plain loads, no helper calls (this runs at every
	 * wakeup of a traced thread) */
	struct task_struct *task = bpf_get_current_task_btf();
	unsigned long base = (unsigned long)task->stack;
	volatile char here = 0;

	if ((unsigned long)&here < base || (unsigned long)&here >= base + TASK_STACK_MAX)
		return true;
	/* on the task's stack: an interrupt that came from user mode */
	return ARCH_ENTERED_BY_INTERRUPT((struct pt_regs *)bpf_task_pt_regs(task));
}

/* (tgid, tid) is made to run by from (0: nobody traced), how.  The
 * causing thread's frames the kernel filter still holds are written first,
 * so that the cause is its innermost frame as the collector has it. */
static __always_inline void send_cause(__u32 tgid, __u32 tid, __u64 from, __u32 how)
{
	struct sled_cause *c;

	if (from)
		kf_settle(from >> 32, (__u32)from);
	c = notice(SLED_KIND_CAUSE, sizeof(*c), tgid, tid, SLED_CTR_CAUSE_DROPS);
	if (!c)
		return;
	c->from_tgid = from >> 32;
	c->from_tid = (__u32)from;
	c->how = how;
	c->pad = 0;
	send(c);
}

/* Every wakeup of the machine runs this, in the waker's context (or an
 * interrupt's): a thread outside the traced processes costs one map
 * lookup.  It fires only when the woken thread really was asleep, before
 * it is queued to run, so nothing it does next comes before this record. */
SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	/* tp_btf: p is a trusted pointer, read with plain loads */
	__u32 tgid = p->tgid, tid, waker;
	__u64 from;

	if (no_events || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	tid = p->pid;
	from = bpf_get_current_pid_tgid();
	if (p->__state & TASK_UNINTERRUPTIBLE) {
		send_cause(tgid, tid, 0, SLED_CAUSE_KERNEL_WAIT);
		return 0;
	}
	if (in_interrupt()) {
		send_cause(tgid, tid, 0, SLED_CAUSE_IRQ);
		return 0;
	}
	/* a thread of the same process (a pool, a queue) needs no lookup */
	waker = from >> 32;
	if (waker != tgid && !bpf_map_lookup_elem(&traced, &waker)) {
		send_cause(tgid, tid, 0, SLED_CAUSE_OUTSIDE);
		return 0;
	}
	send_cause(tgid, tid, from, SLED_CAUSE_WAKE);
	return 0;
}

#endif
