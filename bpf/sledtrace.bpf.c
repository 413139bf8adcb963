// SPDX-License-Identifier: MIT OR GPL-2.0-only
/* sledtrace.bpf.c: the kernel side.  One program per probe kind pushes a
 * 32-byte struct sled_event into one ring buffer; the cookie set at attach
 * time says which object, function and sled kind fired. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sledtrace.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the collector before load. */
const volatile __u64 wakeup_bytes = 256 * 1024; /* adaptive wakeup threshold */
const volatile bool no_events = false;		/* benchmark floor: probe, emit nothing */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024 * 1024); /* resized before load */
} events SEC(".maps");

/* The traced process, set once the child exists (tracepoints have no pid
 * filter of their own). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} target_tgid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SLED_CTR_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&counters, &idx);

	if (v)
		*v += n;
}

/* Wakes the collector only once wakeup_bytes are queued: a wakeup per event
 * costs microseconds, and the collector also drains on a timer, so a quiet
 * trickle of events is never stranded. */
static __always_inline long wakeup_flag(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

static __always_inline int push(__u64 cookie, __u64 sp)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct sled_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(SLED_CTR_DROPS, 1);
		return 0;
	}
	e->ts = bpf_ktime_get_boot_ns();
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->cookie = cookie;
	e->sp = sp;
	bpf_ringbuf_submit(e, wakeup_flag());
	return 0;
}

static __always_inline int emit(struct pt_regs *ctx)
{
	/* Only the traced process reaches here: the links filter by pid. */
	if (no_events)
		return 0;
	return push(bpf_get_attach_cookie(ctx), PT_REGS_SP(ctx));
}

SEC("uprobe")
int on_entry(struct pt_regs *ctx)
{
	return emit(ctx);
}

SEC("uprobe")
int on_exit(struct pt_regs *ctx)
{
	return emit(ctx);
}

SEC("uprobe")
int on_tail(struct pt_regs *ctx)
{
	return emit(ctx);
}

SEC("uretprobe")
int on_ret(struct pt_regs *ctx)
{
	return emit(ctx);
}

/* Runs in the exiting thread, after the last probe event it can cause. */
SEC("tp_btf/sched_process_exit")
int on_thread_exit(void *ctx)
{
	__u32 zero = 0, *tgid = bpf_map_lookup_elem(&target_tgid, &zero);

	if (no_events || !tgid || !*tgid || *tgid != bpf_get_current_pid_tgid() >> 32)
		return 0;
	return push(SLED_COOKIE(SLED_KIND_THREAD_EXIT, 0, 0), 0);
}
