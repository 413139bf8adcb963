/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* gate.h: `record --under`, decided in the kernel.  A call is recorded
 * only while a gate function (its probes' cookies carry SLED_COOKIE_GATE)
 * is on the calling thread's stack; calls outside never reach the ring.
 *
 * Per thread the `gates` map holds the return-address slot S0 of the
 * outermost open gate frame.  Stacks grow down, so an event at slot S is
 * inside while S < S0, and at S > S0 the gate frame is gone: it returned
 * without an exit the probes saw (longjmp, an exception or panic
 * unwinding through it, an exit that is not probed) and the gate closes
 * there, as the collector closes frames (docs/DESIGN.md, "Gates").  At S
 * == S0 the event is the gate frame's own, or a frame that took its slot:
 *   - the gate's exit or return: recorded, the gate closes;
 *   - the gate's tail call: recorded, and the callee that takes over the
 *     slot stays inside (the gate's work goes on in it), until it returns;
 *   - an entry of the gate function at S0: a new gate call, recorded;
 *   - anything else: the gate frame is gone, the gate closes.
 * Recursion of a gate keeps the outermost.  An event on another stack
 * (more than GATE_SPAN away: a signal's alternate stack) is inside while a
 * gate is open, and changes nothing.  Fork copies the gate to the child
 * (it returns through the same frames); exec and thread exit drop it. */
#ifndef SLEDTRACE_BPF_GATE_H
#define SLEDTRACE_BPF_GATE_H

/* Set by the collector before load: any --under given. */
const volatile bool gating = false;

#define GATE_SPAN (256ull << 20)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct sled_gate);
} gates SEC(".maps");

/* The event at the open gate's own slot. */
static __always_inline bool gate_at_slot(struct sled_gate *g, __u32 tid, unsigned kind, bool gate)
{
	bool ours = gate || g->tail;

	if (ours && kind == SLED_KIND_ENTRY) {
		if (gate)
			g->tail = 0;
		return true;
	}
	if (ours && kind == SLED_KIND_TAIL) {
		g->tail = 1;
		return true;
	}
	/* the gate frame returned (ours), or another frame took its slot */
	bpf_map_delete_elem(&gates, &tid);
	return ours;
}

static __always_inline bool gate_open(__u32 tid, __u64 slot)
{
	struct sled_gate g = { .slot = slot };

	if (bpf_map_update_elem(&gates, &tid, &g, BPF_ANY)) {
		count(SLED_CTR_GATES_LOST, 1);
		return false;
	}
	return true;
}

static __always_inline bool gate_decides(__u32 tid, unsigned kind, bool gate, __u64 slot)
{
	struct sled_gate *g = bpf_map_lookup_elem(&gates, &tid);

	if (g) {
		if (slot < g->slot || slot - g->slot >= GATE_SPAN)
			return true;
		if (slot == g->slot)
			return gate_at_slot(g, tid, kind, gate);
		bpf_map_delete_elem(&gates, &tid);
	}
	return kind == SLED_KIND_ENTRY && gate && gate_open(tid, slot);
}

/* Whether the call event (tag, slot) of thread tid is recorded; a call
 * left out is counted at its entry. */
static __always_inline bool gate_admits(__u32 tid, __u64 tag, __u64 slot)
{
	unsigned kind = SLED_TAG_KIND(tag);

	if (gate_decides(tid, kind, tag & SLED_COOKIE_GATE, slot))
		return true;
	if (kind == SLED_KIND_ENTRY)
		count(SLED_CTR_GATED, 1);
	return false;
}

/* A forked child returns through its parent's frames: its gate too. */
static __always_inline void gate_fork(__u32 parent_tid, __u32 child_tid)
{
	struct sled_gate *g;

	if (!gating || !(g = bpf_map_lookup_elem(&gates, &parent_tid)))
		return;
	if (bpf_map_update_elem(&gates, &child_tid, g, BPF_ANY))
		count(SLED_CTR_GATES_LOST, 1);
}

static __always_inline void gate_drop(__u32 tid)
{
	if (gating)
		bpf_map_delete_elem(&gates, &tid);
}

#endif
