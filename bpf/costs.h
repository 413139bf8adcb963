/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* costs.h: what record --costs counts per call, sent where it happens, in
 * the spending thread's own context, among its calls: system calls,
 * page faults of data accesses, and allocations and frees at the
 * allocator's entry (docs/DESIGN.md, "Costs").  The collector charges each
 * to the innermost frame open on that thread.  Included by
 * sledtrace.bpf.c after kfilter.h and notice(). */
#ifndef SLEDTRACE_BPF_COSTS_H
#define SLEDTRACE_BPF_COSTS_H

/* Threads inside an allocator function that may call another one (glibc's
 * realloc(NULL, n) and memalign with a small alignment call malloc, and
 * realloc(p, 0) free): tid -> the depth of such calls.  An allocation is
 * counted once, at its outermost allocator. */
ID_MAP(in_alloc);

/* The frames the kernel filter still holds are written first, so that the
 * cost lands in the innermost frame as the collector has it. */
static __always_inline void send_cost(__u32 tgid, __u32 tid, __u32 what, __u32 nr, __u64 amount)
{
	struct sled_cost *c;

	kf_settle(tgid, tid);
	c = notice(SLED_KIND_COST, sizeof(*c), tgid, tid, SLED_CTR_COST_DROPS);
	if (!c)
		return;
	c->what = what;
	c->nr = nr;
	c->amount = amount;
	send(c);
}

/* Every system call of the machine runs this while --costs records; a
 * process outside the traced ones costs one map lookup. */
SEC("raw_tp/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long nr)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	if (no_events || nr == ARCH_NR_UPROBE || nr == ARCH_NR_URETPROBE ||
	    !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	send_cost(tgid, (__u32)id, SLED_COST_SYSCALL, (__u32)nr, 0);
	return 0;
}

/* Page faults taken in user mode, of data accesses only: a fault the
 * kernel takes on the program's behalf (copying a read(2) buffer) is the
 * system call's, and an instruction fetch's depends on the probes. */
SEC("raw_tp/page_fault_user")
int BPF_PROG(on_fault, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	if (no_events || !ARCH_FAULT_DATA(error_code) || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	send_cost(tgid, (__u32)id, SLED_COST_FAULT, 0, address);
	return 0;
}

/* The size an allocator's arguments a[] ask for (the probe's cookie says
 * which allocator). */
static __always_inline __u64 alloc_size(const __u64 *a, __u32 how)
{
	switch (how) {
	case SLED_ALLOC_CALLOC:
		return a[0] * a[1];
	case SLED_ALLOC_REALLOC:
	case SLED_ALLOC_ALIGNED:
		return a[1];
	case SLED_ALLOC_POSIX_MEMALIGN:
		return a[2];
	default:
		return a[0];
	}
}

/* An allocator's entry, probed per traced process (its link names the
 * process, so no other pays for it). */
SEC("uprobe.multi")
int on_alloc(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 how = (__u32)bpf_get_attach_cookie(ctx), tid = (__u32)id, one = 1, outer, *depth;
	__u64 a[6];

	if (no_events)
		return 0;
	depth = bpf_map_lookup_elem(&in_alloc, &tid);
	outer = depth ? *depth : 0;
	if (SLED_ALLOC_NESTS(how)) {
		if (depth)
			*depth += 1; /* only its own thread writes it */
		else
			bpf_map_update_elem(&in_alloc, &tid, &one, BPF_ANY);
	}
	if (outer)
		return 0; /* inside another allocator: counted there */
	ARCH_ARG_REGS(ctx, a);
	if (how == SLED_ALLOC_FREE) {
		if (a[0])
			send_cost(id >> 32, tid, SLED_COST_FREE, how, 0);
		return 0;
	}
	send_cost(id >> 32, tid, SLED_COST_ALLOC, how, alloc_size(a, how));
	if (how == SLED_ALLOC_REALLOC && a[0])
		send_cost(id >> 32, tid, SLED_COST_FREE, how, 0);
	return 0;
}

/* The return of an allocator that may nest (SLED_ALLOC_NESTS). */
SEC("uretprobe.multi")
int on_alloc_ret(struct pt_regs *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), *depth;

	depth = bpf_map_lookup_elem(&in_alloc, &tid);
	if (!depth)
		return 0;
	if (*depth > 1)
		*depth -= 1;
	else
		bpf_map_delete_elem(&in_alloc, &tid);
	return 0;
}

#endif
