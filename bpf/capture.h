/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* capture.h: `record --capture`, the kernel side.  The chosen functions'
 * entry and return probes emit a struct sled_capture instead of a call
 * record: the registers and, per the probe's spec in `capture_specs`,
 * the memory they point to.  The collector loads them sleepable where the
 * kernel allows (capture_faults), so that memory the target has not
 * touched yet is read too.  Included by sledtrace.bpf.c after the
 * emitters it uses (count, wakeup_flag, the gate). */
#ifndef SLEDTRACE_BPF_CAPTURE_H
#define SLEDTRACE_BPF_CAPTURE_H

/* What the capture probes read besides registers, by cookie: filled by
 * the collector before it attaches them (record --capture). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct sled_capture_spec);
} capture_specs SEC(".maps");

/* Set by the collector before load: the capture programs are loaded
 * sleepable (BPF_F_SLEEPABLE), so a read may fault the target's page in.
 * False on a kernel without sleepable uprobes, and then the branches that
 * fault are dead code the verifier never visits. */
const volatile bool capture_faults = false;

/* Pages a read is faulted in by: the smallest page size, so that a string
 * of SLED_CAP_STR_MAX bytes touches at most two of them. */
#define CAPTURE_PAGE 4096ull

/* The string at p, as bpf_probe_read_user_str says.  A page the target
 * has not touched yet (a literal in .rodata at a function's first call)
 * is not mapped in its page tables, and the non-faulting read fails on it;
 * sleepable, the first byte of each page the string can lie on is faulted
 * in by bpf_copy_from_user and the string read again.  The kfunc
 * bpf_copy_from_user_str would do it in one call but makes libbpf parse
 * the whole kernel BTF at every start (user/record/core_btf.c). */
static __always_inline long read_str(char *dst, __u64 p)
{
	long n = bpf_probe_read_user_str(dst, SLED_CAP_STR_MAX, (const void *)p);
	__u64 rest = CAPTURE_PAGE - (p & (CAPTURE_PAGE - 1));

	if (n >= 0 || !capture_faults)
		return n;
	if (bpf_copy_from_user(dst, 1, (const void *)p))
		return -1;
	/* the next page may lie past the mapping's end, the string not */
	if (rest < SLED_CAP_STR_MAX)
		bpf_copy_from_user(dst, 1, (const void *)(p + rest));
	return bpf_probe_read_user_str(dst, SLED_CAP_STR_MAX, (const void *)p);
}

/* want bytes at p: 0 or a negative errno, as bpf_probe_read_user; a page
 * not mapped yet is faulted in when the programs are sleepable. */
static __always_inline long read_bytes(char *dst, __u32 want, __u64 p)
{
	long err = bpf_probe_read_user(dst, want, (const void *)p);

	if (err && capture_faults)
		err = bpf_copy_from_user(dst, want, (const void *)p);
	return err;
}

/* The memory value i points to, into dst, as read says; a read that fails
 * (NULL, unmapped) sets its invalid bit and never faults the target with a
 * signal.  Only a string that fits the bound is whole. */
static __always_inline void read_value(struct sled_capture *c, char *dst, __u8 read, int i)
{
	long n = 0;

	c->len[i] = 0;
	if (read == SLED_READ_STR) {
		n = read_str(dst, c->val[i]);
		n = n > 0 ? n - 1 : -1;
	} else if (read == SLED_READ_BYTES && i + 1 < SLED_CAP_NREG) {
		__u32 want = SLED_CAP_STR_MAX;

		if (c->val[i + 1] < SLED_CAP_STR_MAX)
			want = (__u32)c->val[i + 1];
		n = want ? read_bytes(dst, want, c->val[i]) : 0;
		n = n ? -1 : (long)want;
	}
	if (n < 0)
		c->invalid |= 1u << i;
	else
		c->len[i] = (__u16)n;
}

/* The head and registers of a capture record. */
static __always_inline void capture_fill(struct sled_capture *c, const __u64 *regs, __u64 cookie,
					 __u64 slot, __u32 via)
{
	__u64 id = bpf_get_current_pid_tgid();

	c->h.ts = bpf_ktime_get_boot_ns();
	c->h.tgid = id >> 32;
	c->h.tid = (__u32)id;
	c->h.tag = cookie;
	c->slot = slot;
	c->via = via;
	c->invalid = 0;
	c->pad = 0;
	c->pad2 = 0;
	for (int i = 0; i < SLED_CAP_NREG; i++)
		c->val[i] = regs[i];
}

/* Records that read memory: subprograms of their own, so that the
 * verifier never sees a path where a shorter record's memory is written
 * past its end.  One read (most functions have one string) fits in a
 * record of SLED_CAPTURE_ONE bytes, its bytes in str[0]. */
static __noinline int emit_capture_one(const __u64 *regs, __u64 cookie, __u64 slot, __u32 via,
				       const struct sled_capture_spec *spec)
{
	struct sled_capture *c = bpf_ringbuf_reserve(&events, SLED_CAPTURE_ONE, 0);

	if (!c) {
		count(SLED_CTR_DROPS, 1);
		return 0;
	}
	capture_fill(c, regs, cookie, slot, via);
	for (int i = 0; i < SLED_CAP_NREG; i++)
		if (spec->read[i])
			read_value(c, c->str[0], spec->read[i], i);
		else
			c->len[i] = 0;
	bpf_ringbuf_submit(c, wakeup_flag());
	return 0;
}

static __noinline int emit_capture_reads(const __u64 *regs, __u64 cookie, __u64 slot, __u32 via,
					 const struct sled_capture_spec *spec)
{
	struct sled_capture *c = bpf_ringbuf_reserve(&events, sizeof(*c), 0);

	if (!c) {
		count(SLED_CTR_DROPS, 1);
		return 0;
	}
	capture_fill(c, regs, cookie, slot, via);
	for (int i = 0; i < SLED_CAP_NREG; i++)
		read_value(c, c->str[i], spec->read[i], i);
	bpf_ringbuf_submit(c, wakeup_flag());
	return 0;
}

/* The capture emitter: the call record of a chosen function, larger, with
 * its registers (args: the argument registers, else the return ones) and
 * what its spec reads from memory. */
static __always_inline int emit_capture(struct pt_regs *ctx, __u64 slot, __u32 via, bool args)
{
	__u64 id = bpf_get_current_pid_tgid(), cookie = bpf_get_attach_cookie(ctx);
	/* the map knows no gate bit; a gate sees the call kind it stands for */
	__u64 key = cookie & ~SLED_COOKIE_GATE, as_call = (cookie << 8 >> 8) | ((__u64)via << 56);
	const struct sled_capture_spec *spec;
	__u32 tgid = id >> 32;
	struct sled_capture *c;
	__u64 regs[SLED_CAP_NREG];

	if (no_events || (filter_tgids && !bpf_map_lookup_elem(&traced, &tgid)))
		return 0;
	if (gating && !gate_admits((__u32)id, as_call, slot))
		return 0;
	/* the filter's clock is read a few instructions before the record's */
	if (kfiltering && !kf_admits_now(tgid, (__u32)id, bpf_ktime_get_boot_ns(), as_call, slot))
		return 0;
	if (args)
		ARCH_ARG_REGS(ctx, regs);
	else
		ARCH_RET_REGS(ctx, regs);
	spec = bpf_map_lookup_elem(&capture_specs, &key);
	if (spec && spec->any == 1)
		return emit_capture_one(regs, cookie, slot, via, spec);
	if (spec && spec->any)
		return emit_capture_reads(regs, cookie, slot, via, spec);
	c = bpf_ringbuf_reserve(&events, SLED_CAPTURE_SMALL, 0);
	if (!c) {
		count(SLED_CTR_DROPS, 1);
		return 0;
	}
	capture_fill(c, regs, cookie, slot, via);
	bpf_ringbuf_submit(c, wakeup_flag());
	return 0;
}

#endif
