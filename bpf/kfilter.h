/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* kfilter.h: `record --min-duration` and `--max-depth`, decided in the
 * kernel, so that what they leave out never crosses the ring.
 *
 * Per thread the `kf_threads` map mirrors the collector's stack of open
 * frames (user/record/collector.c: slots strictly decreasing, an event at
 * slot S ends every frame below S, an entry at S also the one at S), up
 * to KF_FRAMES deep.  Its bottom `emitted` frames have had their entry
 * written; the ones above are pending (only with --min-duration).  The
 * rule that keeps the trace what the collector's own filter would make of
 * the whole stream: the kernel leaves out only whole subtrees that the
 * collector would drop and count, and counts them as it would.
 *   - A pending frame that returns (exit or return at its slot, on top)
 *     shorter than the threshold is dropped and counted short: its callees
 *     were shorter still and were dropped and counted at their own ends.
 *     So is one that ends by a tail call (the collector ends a frame at its
 *     tail sled).  When its function also returns by uretprobe, the
 *     chained return the uretprobe reports for it, at the same slot after
 *     the chain's last callee returns, is remembered as owed (a few slots
 *     per thread, as the collector does) and left out when it comes.
 *   - Anything else that is written first writes the pending entries
 *     below it, with their own timestamps, in order: then the collector
 *     sees those frames and its filter decides them.  That happens at a
 *     long return, at a tail call that finds no room to be remembered, at
 *     an event that ends a written frame by inference (the collector must
 *     infer it at this event's time), at a switch off the CPU (its record
 *     must come after the entries it follows), at fork, exec and thread
 *     exit.  Frames ended by inference that are all pending and short
 *     are dropped and counted like returned ones.  What is still pending
 *     when sledtrace detaches it reads back from the map (record_run.c,
 *     held_back).
 *   - With --max-depth N the frames at depth N+1 and deeper are never
 *     written: an entry below the slot of the N-th frame is counted, and
 *     nothing below it is written.
 * Deeper than KF_FRAMES the kernel stops deciding: it writes what it has
 * pending and then every event below its top frame, until an event at
 * or above that frame's slot ends them; the collector's filter (which
 * still runs) decides and counts those frames.  None of this runs unless
 * a filter is given (`kfiltering`). */
#ifndef SLEDTRACE_BPF_KFILTER_H
#define SLEDTRACE_BPF_KFILTER_H

/* Set by the collector before load. */
const volatile bool kfiltering = false;
const volatile __u64 kf_min_ns = 0;    /* --min-duration; 0: none */
const volatile __u32 kf_max_depth = 0; /* --max-depth; 0: none */

#define KF_FRAMES SLED_KF_FRAMES
#define KF_SPAN (256ull << 20) /* the collector's SAME_STACK_SPAN */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct sled_kf_thread);
} kf_threads SEC(".maps");

/* A new thread's state, all zero (never written): too large for the BPF
 * stack. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sled_kf_thread);
} kf_blank SEC(".maps");

/* The shortest call left out here that called nothing, 0: none (per
 * CPU).  The collector calibrates the probe cost with the shortest leaf
 * call it sees (frames.c, note_leaf), and the short ones end here. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} kf_leaf_min SEC(".maps");

/* The call left out by this return, as the collector would have
 * measured it (a leaf: the last entry was its own, at its slot). */
static __always_inline void kf_note_leaf(const struct sled_kf_thread *t, __u32 kind, __u64 ts,
					 __u64 slot)
{
	__u32 zero = 0;
	__u64 *v, ns = ts - t->entry_ts;

	if (!t->leaf || kind == SLED_KIND_TAIL || slot != t->entry_slot || ts < t->entry_ts)
		return;
	v = bpf_map_lookup_elem(&kf_leaf_min, &zero);
	if (v && (!*v || ns < *v))
		*v = ns;
}

static __always_inline bool kf_same_stack(__u64 a, __u64 b)
{
	return (a > b ? a - b : b - a) < KF_SPAN;
}

struct kf_flushing {
	struct sled_kf_thread *t;
	__u32 tgid, tid;
};

/* One pending entry written, bottom first; 1 stops bpf_loop. */
static long kf_flush_one(__u64 i, void *data)
{
	struct kf_flushing *fl = data;
	struct sled_kf_thread *t = fl->t;
	__u32 k = t->emitted;
	const struct sled_kf_frame *f;

	if (k >= t->n)
		return 1;
	asm volatile("" : "+r"(k)); /* keeps the bound check for the verifier */
	if (k >= KF_FRAMES)
		return 1;
	f = &t->f[k];
	write_call(f->ts, fl->tgid, fl->tid, f->tag, f->slot);
	t->emitted = k + 1;
	return 0;
}

/* Writes the pending entries of thread (tgid, tid).  bpf_loop: the
 * verifier checks the body once, not once per frame and path. */
static __always_inline void kf_flush(struct sled_kf_thread *t, __u32 tgid, __u32 tid)
{
	struct kf_flushing fl = { .t = t, .tgid = tgid, .tid = tid };

	if (t->emitted < t->n)
		bpf_loop(KF_FRAMES, kf_flush_one, &fl, 0);
}

struct kf_unwinding {
	const struct sled_kf_thread *t;
	__u64 slot;
	__u32 left; /* frames still open */
	bool incl;
};

/* The top frame still open ends if the event is above it; 1 stops. */
static long kf_unwind_one(__u64 i, void *data)
{
	struct kf_unwinding *u = data;
	__u32 k = u->left;
	const struct sled_kf_frame *f;

	if (k == 0 || k > KF_FRAMES)
		return 1;
	f = &u->t->f[(k - 1) & (KF_FRAMES - 1)];
	if (!kf_same_stack(f->slot, u->slot) || f->slot > u->slot ||
	    (f->slot == u->slot && !u->incl))
		return 1;
	u->left = k - 1;
	return 0;
}

/* How many frames stay open after an event at slot (an entry: incl), as
 * the collector's close_below decides. */
static __always_inline __u32 kf_survivors(const struct sled_kf_thread *t, __u64 slot, bool incl)
{
	struct kf_unwinding u = { .t = t, .slot = slot, .left = t->n, .incl = incl };

	bpf_loop(KF_FRAMES, kf_unwind_one, &u, 0);
	return u.left;
}

/* Frames keep..n-1 end now, at ts, by inference.  True when the event
 * must be written for that: a written frame ends (the collector infers
 * its end at this event), or the longest pending one lasted long enough
 * (it and those above are written and the collector's filter decides
 * them).  Else they are all short and pending: dropped and counted. */
static __always_inline bool kf_infer(struct sled_kf_thread *t, __u32 keep, __u64 ts)
{
	bool write;

	if (keep >= t->n)
		return false;
	write = keep < t->emitted || ts - t->f[keep & (KF_FRAMES - 1)].ts >= kf_min_ns;
	if (!write) {
		count(SLED_CTR_SHORT, t->n - keep);
		t->n = keep;
	}
	return write;
}

/* Pushes an entry (n < KF_FRAMES): pending, or written when `write`. */
static __always_inline void kf_push(struct sled_kf_thread *t, __u64 ts, __u64 tag, __u64 slot,
				    bool write)
{
	__u32 i = t->n;
	struct sled_kf_frame *f;

	asm volatile("" : "+r"(i)); /* a bound the verifier can see */
	if (i >= KF_FRAMES)
		return;
	f = &t->f[i];
	f->ts = ts;
	f->tag = tag;
	f->slot = slot;
	t->n++;
	if (write)
		t->emitted = t->n;
}

/* An event at slot inside the frames --max-depth leaves out. */
static __always_inline bool kf_too_deep(const struct sled_kf_thread *t, __u64 slot)
{
	const struct sled_kf_frame *top;

	if (!kf_max_depth || t->n < kf_max_depth || !t->n || t->n > KF_FRAMES)
		return false;
	top = &t->f[(t->n - 1) & (KF_FRAMES - 1)];
	return kf_same_stack(top->slot, slot) && slot < top->slot;
}

/* Inside the frames deeper than KF_FRAMES: written as they come. */
static __always_inline bool kf_in_overflow(struct sled_kf_thread *t, __u64 slot)
{
	const struct sled_kf_frame *top = &t->f[(t->n - 1) & (KF_FRAMES - 1)];

	return !kf_same_stack(top->slot, slot) || slot < top->slot;
}

/* A pending frame that ended by a tail call at slot is left out: if its
 * function returns by uretprobe too (SLED_COOKIE_RETPROBED), the return
 * that reports for it at slot, once the chain's last callee returns, is
 * owed and must be left out too (the collector, which never saw the
 * tail, would find no frame for it).  False when
 * there is no room to remember it: then the tail is written, and the
 * collector remembers it itself. */
static __always_inline bool kf_owe(struct sled_kf_thread *t, __u64 slot)
{
	__u32 n = t->ntails;

#pragma unroll
	for (__u32 i = 0; i < SLED_KF_TAILS; i++)
		if (i < n && t->tails[i].slot == slot) {
			t->tails[i].owed++;
			return true;
		}
	if (n >= SLED_KF_TAILS)
		return false;
	t->tails[n & (SLED_KF_TAILS - 1)].slot = slot;
	t->tails[n & (SLED_KF_TAILS - 1)].owed = 1;
	t->ntails = n + 1;
	return true;
}

/* A return at slot with no frame there: one owed to a left-out tail? */
static __always_inline bool kf_pay(struct sled_kf_thread *t, __u64 slot)
{
#pragma unroll
	for (__u32 i = 0; i < SLED_KF_TAILS; i++)
		if (i < t->ntails && t->tails[i].slot == slot && t->tails[i].owed) {
			t->tails[i].owed--;
			return true;
		}
	return false;
}

/* An entry at slot: the chains owed below it are over (the collector's
 * forget_tails_below), and so are the ones fully paid. */
static __always_inline void kf_forget_tails(struct sled_kf_thread *t, __u64 slot)
{
	__u32 n = t->ntails, k = 0;

#pragma unroll
	for (__u32 i = 0; i < SLED_KF_TAILS; i++) {
		struct sled_kf_tail keep = t->tails[i];

		if (i >= n || !keep.owed || (kf_same_stack(keep.slot, slot) && keep.slot < slot))
			continue;
		t->tails[k & (SLED_KF_TAILS - 1)] = keep;
		k++;
	}
	t->ntails = k;
}

static __always_inline bool kf_entry(struct sled_kf_thread *t, __u64 ts, __u64 tag, __u64 slot,
				     bool write, __u32 tgid, __u32 tid)
{
	__u32 keep = kf_survivors(t, slot, true);

	if (t->ntails)
		kf_forget_tails(t, slot);
	write = kf_infer(t, keep, ts) || write || !kf_min_ns;
	if (write)
		kf_flush(t, tgid, tid);
	t->n = keep;
	if (t->emitted > keep)
		t->emitted = keep;
	if (keep >= KF_FRAMES) {
		kf_flush(t, tgid, tid);
		t->over = 1;
		return true;
	}
	kf_push(t, ts, tag, slot, write);
	return write;
}

/* An exit, tail or return (tag: its cookie).  A pending frame's own
 * return or tail call can be left out; a return owed to a tail left out
 * is left out too. */
static __always_inline bool kf_exit(struct sled_kf_thread *t, __u64 ts, __u64 tag, __u64 slot,
				    bool write, __u32 tgid, __u32 tid)
{
	__u32 kind = SLED_TAG_KIND(tag);
	/* a tail whose chained return a uretprobe will report */
	bool owes = kind == SLED_KIND_TAIL && (tag & SLED_COOKIE_RETPROBED);
	__u32 keep = kf_survivors(t, slot, false);
	const struct sled_kf_frame *top;

	write = kf_infer(t, keep, ts) || write;
	if (write)
		kf_flush(t, tgid, tid);
	t->n = keep;
	if (t->emitted > keep)
		t->emitted = keep;
	top = keep && keep <= KF_FRAMES ? &t->f[(keep - 1) & (KF_FRAMES - 1)] : NULL;
	if (!top || top->slot != slot) {
		/* A chained return of a tail left out ends nothing: left out,
		 * unless the collector needs it to infer ends (an unwinding
		 * below the chain; it then counts it unmatched, having never
		 * seen the tail). */
		bool paid = kind == SLED_KIND_RET && t->ntails && kf_pay(t, slot);

		if (paid && !write)
			return false;
		kf_flush(t, tgid, tid); /* the collector finds no frame to end */
		return true;
	}
	if (t->emitted < keep && ts - top->ts < kf_min_ns && (!owes || kf_owe(t, slot))) {
		kf_note_leaf(t, kind, ts, slot);
		t->n = keep - 1;
		count(SLED_CTR_SHORT, 1);
		return false;
	}
	kf_flush(t, tgid, tid);
	t->n = t->emitted = keep - 1;
	return true;
}

/* Follows the builder's leaf test: an entry starts a leaf, any end ends
 * it (after kf_note_leaf looked). */
static __always_inline void kf_track_leaf(struct sled_kf_thread *t, __u32 kind, __u64 ts,
					  __u64 slot)
{
	t->leaf = kind == SLED_KIND_ENTRY;
	if (t->leaf) {
		t->entry_ts = ts;
		t->entry_slot = slot;
	}
}

/* Whether the call event (tag, slot) at ts of the current thread is
 * written; pending entries it needs first are written here.  held: an
 * entry may wait (its record can be rebuilt from the frame). */
static __always_inline int kf_decide(__u32 tgid, __u32 tid, __u64 ts, __u64 tag, __u64 slot,
				     bool held)
{
	unsigned kind = SLED_TAG_KIND(tag);
	struct sled_kf_thread *t;
	__u32 zero = 0;
	bool write = false;
	void *blank;

	if (!kfiltering)
		return true;
	t = bpf_map_lookup_elem(&kf_threads, &tid);
	if (!t) {
		if (kind != SLED_KIND_ENTRY || !(blank = bpf_map_lookup_elem(&kf_blank, &zero)))
			return true; /* no frame the kernel knows: the collector decides */
		bpf_map_update_elem(&kf_threads, &tid, blank, BPF_NOEXIST);
		if (!(t = bpf_map_lookup_elem(&kf_threads, &tid)))
			return true;
		t->tgid = tgid;
	}
	t->last_ts = ts;
	if (kf_too_deep(t, slot)) {
		if (kind == SLED_KIND_ENTRY)
			count(SLED_CTR_DEEP, 1);
		else
			kf_note_leaf(t, kind, ts, slot);
		kf_track_leaf(t, kind, ts, slot);
		return false;
	}
	if (t->over && kf_in_overflow(t, slot)) {
		kf_track_leaf(t, kind, ts, slot);
		return true;
	}
	/* the frames above the kept ones end here, if any: the collector
	 * infers them at this event */
	write = t->over || !held;
	t->over = 0;
	if (kind == SLED_KIND_ENTRY) {
		kf_track_leaf(t, kind, ts, slot);
		return kf_entry(t, ts, tag, slot, write, tgid, tid);
	}
	write = kf_exit(t, ts, tag, slot, write, tgid, tid);
	kf_track_leaf(t, kind, ts, slot);
	return write;
}

/* Global functions: the verifier checks each once, apart from its
 * callers' paths (and, with no filter, sees `kfiltering` false and goes
 * no further). */
__attribute__((noinline)) int kf_admits(__u32 tgid, __u32 tid, __u64 ts, __u64 tag, __u64 slot)
{
	return kf_decide(tgid, tid, ts, tag, slot, true);
}

/* A captured call (capture.h): its entry record holds registers a frame
 * here cannot keep, so it is written at once, and the collector's filter
 * decides the call. */
__attribute__((noinline)) int kf_admits_now(__u32 tgid, __u32 tid, __u64 ts, __u64 tag, __u64 slot)
{
	return kf_decide(tgid, tid, ts, tag, slot, false);
}

/* The thread's pending entries are written now: it leaves the CPU (its
 * switch record follows them), or forks, or ends. */
static __always_inline struct sled_kf_thread *kf_settle(__u32 tgid, __u32 tid)
{
	struct sled_kf_thread *t;

	if (!kfiltering || !(t = bpf_map_lookup_elem(&kf_threads, &tid)))
		return NULL;
	if (t->emitted < t->n)
		kf_flush(t, tgid, tid);
	return t;
}

/* exec or thread exit: its frames end with it (the collector ends the
 * written ones, and its filter decides them). */
static __always_inline void kf_end(__u32 tgid, __u32 tid)
{
	if (kf_settle(tgid, tid))
		bpf_map_delete_elem(&kf_threads, &tid);
}

/* A forked child returns through the frames its parent has open at the
 * fork, as the collector gives them to it: all written, and those below
 * the parent's stack pointer ended (the collector infers them). */
static __always_inline void kf_fork(__u32 tgid, __u32 parent_tid, __u32 child_tgid, __u32 child_tid,
				    __u64 sp)
{
	struct sled_kf_thread *t = kf_settle(tgid, parent_tid);

	if (!t) {
		if (kfiltering)
			bpf_map_delete_elem(&kf_threads, &child_tid);
		return;
	}
	if (sp) {
		t->n = kf_survivors(t, sp, false);
		t->emitted = t->n;
	}
	if (bpf_map_update_elem(&kf_threads, &child_tid, t, BPF_ANY))
		return;
	t = bpf_map_lookup_elem(&kf_threads, &child_tid);
	if (t)
		t->tgid = child_tgid;
}

#endif
