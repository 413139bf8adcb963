/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* calib.h: the program record times to learn what one probe hit costs on
 * this machine (user/record/probe_calib.c).  It is attached only to
 * functions of sledtrace's own, in sledtrace's own process, before the
 * target runs, and does the work emit_call does for a call record (the
 * thread, the cookie, the clock, a ring reservation), then discards the
 * reservation: no event reaches the collector.  Included by
 * sledtrace.bpf.c after the ring buffer. */
#ifndef SLEDTRACE_BPF_CALIB_H
#define SLEDTRACE_BPF_CALIB_H

/* Both kinds of probe run it: an entry uprobe and a uretprobe alike. */
SEC("uprobe")
int on_calib(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), tag = bpf_get_attach_cookie(ctx);
	__u64 ts = bpf_ktime_get_boot_ns();
	struct sled_call *c = bpf_ringbuf_reserve(&events, sizeof(*c), 0);

	if (!c)
		return 0;
	c->h.ts = ts;
	c->h.tgid = id >> 32;
	c->h.tid = (__u32)id;
	c->h.tag = tag;
	c->slot = PT_REGS_SP(ctx);
	bpf_ringbuf_discard(c, BPF_RB_NO_WAKEUP);
	return 0;
}

#endif
