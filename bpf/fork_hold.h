/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* fork_hold.h: forked children stopped before their first instruction
 * when their text may call into a uprobe trampoline they were not given
 * (user/record/fork_text.c says why and repairs them).  The parent marks
 * the child at fork (a child that shares its mm, vfork or a thread, needs
 * nothing); the child, at its own return from the fork system call, takes
 * a hold like a new mapping's (hold_as), so the keeper resumes it if
 * sledtrace dies.  Included after hold_as. */
#ifndef SLEDTRACE_BPF_FORK_HOLD_H
#define SLEDTRACE_BPF_FORK_HOLD_H

/* Set by the collector when the launched tree runs rewritten sleds on a
 * kernel that optimizes them. */
bool fix_forks = false;
/* Set by the collector when record --costs probes allocators per process:
 * a forked child must get its own before it runs (alloc_probes.h). */
bool hold_forks = false;

/* Forked children not yet stopped (tgid -> 1). */
ID_MAP(forked);

/* In the parent, from on_fork, before the child runs. */
static __always_inline void fork_hold_mark(struct task_struct *parent, struct task_struct *child,
					   __u32 ctgid)
{
	__u32 one = 1;

	if (!(fix_forks || hold_forks) || holds_off ||
	    BPF_CORE_READ(child, mm) == BPF_CORE_READ(parent, mm))
		return;
	if (bpf_map_update_elem(&forked, &ctgid, &one, BPF_ANY))
		count(SLED_CTR_UNREPAIRED, 1);
}

/* In every thread at a system call's exit: the marked child's first. */
static __always_inline void fork_hold_take(struct pt_regs *regs, long ret)
{
	__u64 id;
	__u32 tgid;
	long nr;

	if (ret || !(fix_forks || hold_forks))
		return;
	nr = ARCH_SYSCALL_NR(regs);
	if (nr != ARCH_NR_CLONE && nr != ARCH_NR_FORK && nr != ARCH_NR_VFORK &&
	    nr != ARCH_NR_CLONE3)
		return;
	id = bpf_get_current_pid_tgid();
	tgid = id >> 32;
	if (tgid != (__u32)id || !bpf_map_lookup_elem(&forked, &tgid))
		return;
	bpf_map_delete_elem(&forked, &tgid);
	if (holds_off)
		return;
	hold_as(SLED_KIND_FORK_HOLD, tgid, NULL, 0);
}

#endif
