// SPDX-License-Identifier: MIT OR GPL-2.0-only
/* sledtrace.bpf.c: the kernel side, one object.  One program for sleds
 * and one for returns push a 32-byte struct sled_call into one ring
 * buffer; the cookie set at attach time says which object, function and
 * sled kind fired.  Here too: the maps, the emitters and the programs that
 * follow processes (exit, fork, exec, names).  Each header holds one more
 * concern: gate.h (--under), kfilter.h (--min-duration, --max-depth),
 * capture.h (--capture), fork_hold.h and mmap_hold.h (the holds),
 * sched.h (switches), calib.h (record's measure of a probe hit). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "arch/arch.h"
#include "sledtrace.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by the collector before load. */
const volatile __u64 wakeup_bytes = 256 * 1024; /* adaptive wakeup threshold */
const volatile bool no_events = false;		/* benchmark floor: probe, emit nothing */
/* The links fire in every process (pid -1): keep only those in `traced`. */
const volatile bool filter_tgids = false;
/* Trace the children of traced processes too (fork, vfork, clone). */
const volatile bool follow = false;
/* Hold traced processes at new executable mappings until attached. */
const volatile bool hold_mappings = false;
/* Set by the collector when it stops answering holds: the mmap hook's
 * teardown (a grace period) then happens in a helper after sledtrace. */
bool holds_off = false;
/* Holds taken so far, over all processes: each hold takes the next number
 * before its stop signal is sent.  The collector reads it while a held
 * process is stopped: a later event of that process with a higher number
 * came after its resume (docs/DESIGN.md, "Coverage").  Global rather than
 * per process, so a reused pid can never meet an old number. */
__u64 hold_seq = 0;

#define PROT_EXEC 0x4
#define VM_EXEC 0x4
#define SIGSTOP 19
#define SIGCONT 18
#define ENOENT 2

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024 * 1024); /* resized before load */
} events SEC(".maps");

/* A map of process or thread ids to a u32.  Not preallocated: 65,536
 * elements took 1 ms of every load. */
#define ID_MAP(name)                                  \
	struct {                                      \
		__uint(type, BPF_MAP_TYPE_HASH);      \
		__uint(max_entries, 65536);           \
		__uint(map_flags, BPF_F_NO_PREALLOC); \
		__type(key, __u32);                   \
		__type(value, __u32);                 \
	} name SEC(".maps")

/* The traced processes (tgid -> 1), filled by the collector: tracepoints
 * have no pid filter of their own, and links attached with pid -1 fire in
 * every process that maps the file.  An insert at fork that fails is
 * counted. */
ID_MAP(traced);

/* Files the collector has looked at: running them again needs no hold.
 * Filled from user space, which sees a failed insert; not preallocated. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sled_file_id);
	__type(value, __u32);
} known_files SEC(".maps");

/* Processes stopped here and not yet resumed (tgid -> the file of their
 * latest hold, zero for a fork), so that whoever outlives a killed
 * collector can resume them, and a foreign SIGCONT names the file.
 * Preallocated: recording a stop must never fail for memory. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct sled_file_id);
} held SEC(".maps");

/* Where a traced process may have run code of a file before its probes
 * were live, and since when (boot-time ns, the first time).  The collector
 * reads it at the end and writes each into the trace. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct sled_gap_key);
	__type(value, __u64);
} gaps SEC(".maps");

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

#include "gate.h"

static __always_inline void note_gap(__u32 tgid, __u32 reason, const struct sled_file_id *id)
{
	struct sled_gap_key k = { .tgid = tgid, .reason = reason };
	__u64 now = bpf_ktime_get_boot_ns();

	if (id) {
		k.dev = id->dev;
		k.ino = id->ino;
	}
	if (bpf_map_update_elem(&gaps, &k, &now, BPF_NOEXIST) && !bpf_map_lookup_elem(&gaps, &k))
		count(SLED_CTR_GAPS_LOST, 1);
}

/* Wakes the collector once wakeup_bytes are queued, and then with every
 * record until it has caught up: a wakeup per event costs microseconds,
 * and the collector also drains on a timer, so a quiet trickle of events
 * is never stranded.  The forced wakeups while it is behind are also the
 * backpressure that keeps it from losing events: each costs its producer
 * an interrupt (DESIGN.md, "Waking the collector", has what was tried). */
static __always_inline long wakeup_flag(void)
{
	return bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									     : BPF_RB_NO_WAKEUP;
}

/* A call record of thread (tgid, tid); a full ring counts a drop. */
static __always_inline void write_call(__u64 ts, __u32 tgid, __u32 tid, __u64 tag, __u64 slot)
{
	struct sled_call *c = bpf_ringbuf_reserve(&events, sizeof(*c), 0);

	if (!c) {
		count(SLED_CTR_DROPS, 1);
		return;
	}
	c->h.ts = ts;
	c->h.tgid = tgid;
	c->h.tid = tid;
	c->h.tag = tag;
	c->slot = slot;
	bpf_ringbuf_submit(c, wakeup_flag());
}

#include "kfilter.h"

/* The first emitter: one 32-byte call record per probe hit, of the
 * current thread, unless a filter leaves it out.  slot: the frame's
 * return-address slot. */
static __always_inline int emit_call(struct pt_regs *ctx, __u64 slot)
{
	__u64 id = bpf_get_current_pid_tgid(), tag = bpf_get_attach_cookie(ctx), ts;
	__u32 tgid = id >> 32;

	/* With one process the links filter by pid; with several, here. */
	if (no_events || (filter_tgids && !bpf_map_lookup_elem(&traced, &tgid)))
		return 0;
	/* a call left out by the gate costs no clock read (~70 ns) */
	if (gating && !gate_admits((__u32)id, tag, slot))
		return 0;
	ts = bpf_ktime_get_boot_ns();
	if (kfiltering && !kf_admits(tgid, (__u32)id, ts, tag, slot))
		return 0;
	write_call(ts, tgid, (__u32)id, tag, slot);
	return 0;
}

/* The second emitter: a notice of `kind`, `size` bytes, about thread
 * (tgid, tid), its header filled; the caller fills the rest and submits
 * with send().  A full ring counts in lost_ctr (NULL then). */
static __always_inline void *notice(__u32 kind, __u32 size, __u32 tgid, __u32 tid, __u32 lost_ctr)
{
	struct sled_head *h = bpf_ringbuf_reserve(&events, size, 0);

	if (!h) {
		count(lost_ctr, 1);
		return NULL;
	}
	h->ts = bpf_ktime_get_boot_ns();
	h->tgid = tgid;
	h->tid = tid;
	h->tag = SLED_TAG(kind);
	return h;
}

static __always_inline void send(void *notice)
{
	bpf_ringbuf_submit(notice, wakeup_flag());
}

/* argv of the current process, as exec left it on the new stack (present:
 * the kernel has just written it there). */
static __always_inline void read_args(struct sled_ident *id)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u64 start, len;

	if (!mm)
		return;
	start = BPF_CORE_READ(mm, arg_start);
	len = BPF_CORE_READ(mm, arg_end) - start;
	if (len > SLED_ARGS_MAX) {
		len = SLED_ARGS_MAX;
		id->flags |= SLED_IDENT_TRUNCATED;
	}
	if (len && !bpf_probe_read_user(id->args, len, (const void *)start)) {
		id->args_len = len;
		id->flags |= SLED_IDENT_ARGS;
	}
}

/* A thread's name (kcomm, a kernel string; NULL: the current thread's),
 * with its process's argv when args. */
static __always_inline void send_ident(__u32 tgid, __u32 tid, const char *kcomm, bool args)
{
	struct sled_ident *id = notice(SLED_KIND_IDENT, sizeof(*id), tgid, tid,
				       SLED_CTR_LOST_IDENT);

	if (!id)
		return;
	id->flags = 0;
	id->args_len = 0;
	if (kcomm)
		bpf_probe_read_kernel_str(id->comm, sizeof(id->comm), kcomm);
	else
		bpf_get_current_comm(id->comm, sizeof(id->comm));
	if (args)
		read_args(id);
	send(id);
}

/* Entry, exit and tail sleds: the cookie tells them apart. */
SEC("uprobe")
int on_sled(struct pt_regs *ctx)
{
	return emit_call(ctx, PT_REGS_SP(ctx));
}

SEC("uretprobe")
int on_ret(struct pt_regs *ctx)
{
	return emit_call(ctx, ARCH_RET_SLOT(PT_REGS_SP(ctx)));
}

#include "capture.h"
#include "calib.h"

/* The capture programs replace on_sled and on_ret on the chosen
 * functions' entry sled and on their returns (exit sled or uretprobe).
 * SEC("uprobe") like the call programs: the collector makes them
 * sleepable before load when the kernel has sleepable uprobes. */
SEC("uprobe")
int on_capture_entry(struct pt_regs *ctx)
{
	return emit_capture(ctx, PT_REGS_SP(ctx), SLED_KIND_ENTRY, true);
}

SEC("uprobe")
int on_capture_exit(struct pt_regs *ctx)
{
	return emit_capture(ctx, PT_REGS_SP(ctx), SLED_KIND_EXIT, false);
}

SEC("uretprobe")
int on_capture_ret(struct pt_regs *ctx)
{
	return emit_capture(ctx, ARCH_RET_SLOT(PT_REGS_SP(ctx)), SLED_KIND_RET, false);
}

/* The process-scope programs are raw tracepoints that read kernel fields
 * with BPF_CORE_READ, not BTF-typed ones that dereference them: libbpf then
 * needs kernel BTF only for the CO-RE relocations (a minimal BTF does, see
 * user/record/core_btf.c), and the verifier does no BTF pointer walks,
 * each a search of the kernel's BTF by name. */

static long file_of_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct sled_file_id *id = data;
	struct inode *inode = BPF_CORE_READ(vma, vm_file, f_inode);

	/* Only code: the mmap tracepoint sees every mapping's address. */
	if (inode && (BPF_CORE_READ(vma, vm_flags) & VM_EXEC)) {
		id->dev = BPF_CORE_READ(inode, i_sb, s_dev);
		id->ino = BPF_CORE_READ(inode, i_ino);
	}
	return 0;
}

/* Stops the current process until the collector has probed what it
 * maps, and reports it.  The order is what the coverage argument rests
 * on: the hold number is taken first, the stop sent next, the event last;
 * an event is queued for every stop, so nothing is stopped without the
 * collector knowing.  The stop takes effect on the way back to user space:
 * no instruction of the new mapping runs unprobed.  A hold that cannot be
 * taken is noted as a gap, never silently skipped. */
static __always_inline int hold_as(__u32 kind, __u32 tgid, const struct sled_file_id *id,
				   __u64 addr)
{
	static const struct sled_file_id no_file;
	__u64 seq = __sync_fetch_and_add(&hold_seq, 1) + 1;
	struct sled_mapped *m = notice(kind, sizeof(*m), tgid, (__u32)bpf_get_current_pid_tgid(),
				       SLED_CTR_UNHELD);

	if (!m) {
		note_gap(tgid, SLED_GAP_UNHELD, id);
		return 0;
	}
	bpf_map_update_elem(&held, &tgid, id ? id : &no_file, BPF_ANY);
	if (bpf_send_signal_thread(SIGSTOP)) {
		bpf_map_delete_elem(&held, &tgid);
		bpf_ringbuf_discard(m, 0);
		note_gap(tgid, SLED_GAP_UNHELD, id);
		return 0;
	}
	m->addr = addr;
	m->hold = seq;
	bpf_ringbuf_submit(m, BPF_RB_FORCE_WAKEUP);
	return 0;
}

#include "fork_hold.h"
#include "causes.h"
#include "costs.h"

/* Holds the current process at a file it now runs code from, unless that
 * file's probes are live already (known_files). */
static __always_inline int hold(__u32 tgid, const struct sled_file_id *id, __u64 addr)
{
	if (holds_off || !id->ino || bpf_map_lookup_elem(&known_files, id))
		return 0;
	return hold_as(SLED_KIND_MAPPED, tgid, id, addr);
}

/* A thread of a traced process is inside mmap(2) of a file not known
 * with PROT_EXEC (from the syscall's entry to its exit, where the hold is
 * taken).  Per thread (tid -> the file, read from the descriptor at the
 * entry: the exit then needs no lookup that could fail) and per process
 * (tgid -> how many, which file: a fork by another thread in that window
 * copies the new mapping into a child the hold does not stop, and on_fork
 * notes that child as a gap). */
struct inflight {
	__u32 n;
	__u32 pad;
	struct sled_file_id file;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct sled_file_id);
} inflight_threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct inflight);
} inflight SEC(".maps");

static __always_inline void inflight_begin(__u32 tgid, __u32 tid, const struct sled_file_id *id)
{
	struct inflight zero = {}, *in;

	if (bpf_map_update_elem(&inflight_threads, &tid, id, BPF_NOEXIST))
		return;
	bpf_map_update_elem(&inflight, &tgid, &zero, BPF_NOEXIST);
	in = bpf_map_lookup_elem(&inflight, &tgid);
	if (!in) {
		bpf_map_delete_elem(&inflight_threads, &tid);
		return;
	}
	in->file = *id;
	__sync_fetch_and_add(&in->n, 1);
}

/* After the hold: a fork from now on finds the process in `held`. */
static __always_inline void inflight_end(__u32 tgid, __u32 tid)
{
	struct inflight *in;

	if (bpf_map_delete_elem(&inflight_threads, &tid))
		return;
	in = bpf_map_lookup_elem(&inflight, &tgid);
	if (in)
		__sync_fetch_and_add(&in->n, (__u32)-1);
}

/* A child forked while its parent had a new mapping whose probes were not
 * live yet (a hold in flight, or held and not resumed) runs it from its
 * first instruction with no hold of its own: a gap, until the file's
 * probes are live.  Threads share the parent's stop, and a child after
 * the stop is complete cannot happen (the parent is stopped). */
static __always_inline void check_fork(__u32 tgid, __u32 ctgid)
{
	struct sled_file_id *file;
	struct inflight *in;

	if (!hold_mappings || holds_off)
		return;
	in = bpf_map_lookup_elem(&inflight, &tgid);
	if (in && in->n) {
		note_gap(ctgid, SLED_GAP_FORK, &in->file);
		return;
	}
	file = bpf_map_lookup_elem(&held, &tgid);
	if (file)
		note_gap(ctgid, SLED_GAP_FORK, file);
}

/* Runs in the exiting thread, after the last probe event it can cause.
 * The last thread of a process takes it out of the traced set, so a later
 * process that reuses the pid is not traced by mistake. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct sled_thread_exit *e;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	inflight_end(tgid, (__u32)bpf_get_current_pid_tgid());
	gate_drop((__u32)bpf_get_current_pid_tgid());
	kf_end(tgid, (__u32)bpf_get_current_pid_tgid());
	if (group_dead) {
		bpf_map_delete_elem(&traced, &tgid);
		bpf_map_delete_elem(&held, &tgid);
		bpf_map_delete_elem(&inflight, &tgid);
	}
	if (no_events)
		return 0;
	e = notice(SLED_KIND_THREAD_EXIT, sizeof(*e), tgid, (__u32)bpf_get_current_pid_tgid(),
		   SLED_CTR_DROPS);
	if (e) {
		e->process_ended = group_dead;
		e->pad = 0;
		send(e);
	}
	return 0;
}

/* Runs in the parent: a new process of a traced one is traced from its
 * first instruction (the child runs only after this returns). */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	struct sled_fork *f;
	__u64 sp;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, one = 1;
	__u32 ctgid = BPF_CORE_READ(child, tgid), cpid = BPF_CORE_READ(child, pid);

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	/* A new thread is named as its creator is now (the child's comm is a
	 * copy): it may be gone before the collector could read /proc. */
	if (cpid != ctgid) {
		if (no_events)
			return 0;
		send_ident(ctgid, cpid, NULL, false);
		if (causes_on)
			send_cause(ctgid, cpid, bpf_get_current_pid_tgid(), SLED_CAUSE_SPAWN);
		return 0;
	}
	if (!follow)
		return 0;
	if (bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY)) {
		count(SLED_CTR_UNTRACED, 1);
		return 0;
	}
	check_fork(tgid, ctgid);
	fork_hold_mark(parent, child, ctgid);
	gate_fork((__u32)bpf_get_current_pid_tgid(), cpid);
	if (no_events)
		return 0;
	sp = PT_REGS_SP_CORE((struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()));
	kf_fork(tgid, (__u32)bpf_get_current_pid_tgid(), ctgid, cpid, sp);
	send_ident(ctgid, cpid, NULL, false);
	f = notice(SLED_KIND_FORK, sizeof(*f), ctgid, cpid, SLED_CTR_LOST_CONTROL);
	if (f) {
		f->parent_tgid = tgid;
		f->parent_tid = (__u32)bpf_get_current_pid_tgid();
		f->parent_sp = sp;
		send(f);
	}
	return 0;
}

#include "mmap_hold.h"

/* execve(2): the thread's frames of the old image end; a binary the
 * collector does not know is held (its interpreter is mapped by the
 * kernel too, but holds no sleds). */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct sled_file_id id = {};
	struct inode *inode = BPF_CORE_READ(bprm, file, f_inode);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, tid = (__u32)bpf_get_current_pid_tgid();

	if (!inode || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	gate_drop(tid);
	gate_drop((__u32)old_pid); /* a thread other than the leader exec'd */
	kf_end(tgid, tid);
	kf_end(tgid, (__u32)old_pid);
	if (!no_events) {
		struct sled_head *h = notice(SLED_KIND_EXEC, sizeof(*h), tgid, tid,
					     SLED_CTR_LOST_CONTROL);

		if (h)
			send(h);
		send_ident(tgid, tid, NULL, true);
	}
	if (!hold_mappings)
		return 0;
	id.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	id.ino = BPF_CORE_READ(inode, i_ino);
	return hold(tgid, &id, 0);
}

/* A SIGCONT for a process held here that is not the collector's own
 * resume (job control, `kill -CONT`, sledtrace's keeper after sledtrace
 * died) lets it run before its new mapping's probes are live: a gap.  The
 * collector deletes the process from `held` before it resumes it. */
SEC("raw_tp/signal_generate")
int BPF_PROG(on_signal, int sig, struct kernel_siginfo *info, struct task_struct *task)
{
	struct sled_file_id *file;
	__u32 tgid;

	if (sig != SIGCONT)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	file = bpf_map_lookup_elem(&held, &tgid);
	if (file)
		note_gap(tgid, SLED_GAP_CONTINUED, file);
	return 0;
}

/* A thread of a traced process was renamed (prctl(PR_SET_NAME),
 * pthread_setname_np, exec): possibly by another thread, so the task
 * says whose name it is. */
SEC("raw_tp/task_rename")
int BPF_PROG(on_rename, struct task_struct *task, const char *comm)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);

	if (no_events || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	send_ident(tgid, BPF_CORE_READ(task, pid), comm, false);
	return 0;
}

#include "sched.h"
