// SPDX-License-Identifier: MIT OR GPL-2.0-only
/* sledtrace.bpf.c: the kernel side.  One program per probe kind pushes a
 * 32-byte struct sled_event into one ring buffer; the cookie set at attach
 * time says which object, function and sled kind fired. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

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

#define PROT_EXEC 0x4
#define VM_EXEC 0x4
#define SIGSTOP 19
#define __NR_MMAP 9 /* x86-64 */

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024 * 1024); /* resized before load */
} events SEC(".maps");

/* The traced processes (tgid -> 1), filled by the collector: tracepoints
 * have no pid filter of their own, and links attached with pid -1 fire in
 * every process that maps the file.  Not preallocated (65,536 elements
 * took 1 ms of every load): an insert at fork that fails is counted. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/* Files the collector has looked at: running them again needs no hold.
 * Filled from user space, which sees a failed insert; not preallocated. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct sled_file_id);
	__type(value, __u32);
} known_files SEC(".maps");

/* Processes stopped here and not yet resumed (tgid -> 1), so that whoever
 * outlives a killed collector can resume them.  Preallocated: recording a
 * stop must never fail for memory. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} held SEC(".maps");

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

/* One event of thread id (tgid << 32 | tid); a full ring counts in
 * lost_ctr: call events, control notices and so on are counted apart. */
static __always_inline void emit_event(__u64 id, __u64 cookie, __u64 sp, __u32 lost_ctr)
{
	struct sled_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count(lost_ctr, 1);
		return;
	}
	e->ts = bpf_ktime_get_boot_ns();
	e->tgid = id >> 32;
	e->tid = (__u32)id;
	e->cookie = cookie;
	e->sp = sp;
	bpf_ringbuf_submit(e, wakeup_flag());
}

/* id: bpf_get_current_pid_tgid(), which the caller has already asked for. */
static __always_inline int push_as(__u64 id, __u64 cookie, __u64 sp)
{
	emit_event(id, cookie, sp, SLED_CTR_DROPS);
	return 0;
}

static __always_inline int push(__u64 cookie, __u64 sp)
{
	return push_as(bpf_get_current_pid_tgid(), cookie, sp);
}

/* Fork and exec notices: lost ones are counted apart from call events. */
static __always_inline void push_control(__u64 cookie, __u64 sp)
{
	emit_event(bpf_get_current_pid_tgid(), cookie, sp, SLED_CTR_LOST_CONTROL);
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
		id->e.sp |= SLED_IDENT_TRUNCATED;
	}
	if (len && !bpf_probe_read_user(id->args, len, (const void *)start)) {
		id->args_len = len;
		id->e.sp |= SLED_IDENT_ARGS;
	}
}

/* A thread's name (kcomm, a kernel string; NULL: the current thread's),
 * with its process's argv when args. */
static __always_inline void push_ident(__u32 tgid, __u32 tid, const char *kcomm, bool args)
{
	struct sled_ident *id = bpf_ringbuf_reserve(&events, sizeof(*id), 0);

	if (!id) {
		count(SLED_CTR_LOST_IDENT, 1);
		return;
	}
	id->e.ts = bpf_ktime_get_boot_ns();
	id->e.tgid = tgid;
	id->e.tid = tid;
	id->e.cookie = SLED_COOKIE(SLED_KIND_IDENT, 0, 0);
	id->e.sp = 0;
	id->args_len = 0;
	id->pad = 0;
	if (kcomm)
		bpf_probe_read_kernel_str(id->comm, sizeof(id->comm), kcomm);
	else
		bpf_get_current_comm(id->comm, sizeof(id->comm));
	if (args)
		read_args(id);
	bpf_ringbuf_submit(id, wakeup_flag());
}

static __always_inline int emit(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	/* With one process the links filter by pid; with several, here. */
	if (no_events || (filter_tgids && !bpf_map_lookup_elem(&traced, &tgid)))
		return 0;
	return push_as(id, bpf_get_attach_cookie(ctx), PT_REGS_SP(ctx));
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

/* The process-scope programs are raw tracepoints that read kernel fields
 * with BPF_CORE_READ, not BTF-typed ones that dereference them: libbpf then
 * needs kernel BTF only for the CO-RE relocations (a minimal BTF does, see
 * user/record/core_btf.c), and the verifier does no BTF pointer walks,
 * each a search of the kernel's BTF by name. */

/* Runs in the exiting thread, after the last probe event it can cause.
 * The last thread of a process takes it out of the traced set, so a later
 * process that reuses the pid is not traced by mistake. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p, bool group_dead)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	if (group_dead) {
		bpf_map_delete_elem(&traced, &tgid);
		bpf_map_delete_elem(&held, &tgid);
	}
	if (no_events)
		return 0;
	return push(SLED_COOKIE(SLED_KIND_THREAD_EXIT, 0, 0), group_dead); /* sp: the last one */
}

/* Runs in the parent: a new process of a traced one is traced from its
 * first instruction (the child runs only after this returns). */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, one = 1;
	__u32 ctgid = BPF_CORE_READ(child, tgid), cpid = BPF_CORE_READ(child, pid);

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	/* A new thread is named as its creator is now (the child's comm is a
	 * copy): it may be gone before the collector could read /proc. */
	if (cpid != ctgid) {
		if (!no_events)
			push_ident(ctgid, cpid, NULL, false);
		return 0;
	}
	if (!follow)
		return 0;
	if (bpf_map_update_elem(&traced, &ctgid, &one, BPF_ANY)) {
		count(SLED_CTR_UNTRACED, 1);
		return 0;
	}
	if (no_events)
		return 0;
	push_ident(ctgid, cpid, NULL, false);
	/* The child's event; sp: the forking thread, tgid << 32 | tid. */
	emit_event((__u64)ctgid << 32 | cpid, SLED_COOKIE(SLED_KIND_FORK, 0, 0),
		   bpf_get_current_pid_tgid(), SLED_CTR_LOST_CONTROL);
	return 0;
}

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

/* Reports a file a traced process now runs code from, unless the collector
 * knows it, and stops the process until the collector has attached it.
 * The event is queued first and the process stopped only if that worked,
 * so nothing is ever stopped without the collector knowing.  The stop
 * takes effect on the way back to user space: no instruction of the new
 * mapping runs unprobed. */
static __always_inline int hold(__u32 tgid, const struct sled_file_id *id, __u64 addr)
{
	struct sled_event *e;
	__u32 one = 1;

	if (holds_off || !id->ino || bpf_map_lookup_elem(&known_files, id))
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(SLED_CTR_UNHELD, 1);
		return 0;
	}
	bpf_map_update_elem(&held, &tgid, &one, BPF_ANY);
	bpf_send_signal_thread(SIGSTOP);
	e->ts = bpf_ktime_get_boot_ns();
	e->tgid = tgid;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->cookie = SLED_COOKIE(SLED_KIND_MAPPED, 0, 0);
	e->sp = addr;
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

static __always_inline int hold_mapping(long ret)
{
	struct sled_file_id id = {};
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	bpf_find_vma(bpf_get_current_task_btf(), (__u64)ret, file_of_vma, &id, 0);
	return hold(tgid, &id, (__u64)ret);
}

/* The record of a syscall exit tracepoint.  Not a kernel type that CO-RE
 * could relocate but the layout tracefs publishes for the event
 * (events/syscalls/sys_exit_mmap/format: the common fields in 8 bytes,
 * __syscall_nr at 8, ret at 16), which perf and every tracepoint program
 * read by offset and the kernel keeps. */
struct sys_exit_record {
	__u64 common;
	int nr;
	int pad;
	long ret;
};

/* mmap(2) of a file with PROT_EXEC (the dynamic loader, dlopen).  This
 * kernel has no fentry or kprobe attachment here; the syscall tracepoint of
 * mmap alone runs the program for mmap exits only.  Every syscall still
 * takes the kernel's tracing path while it is attached, but without a BPF
 * run: with rewritten sleds every probe hit is a syscall (the trampoline
 * calls uprobe(2)), and a program on every syscall exit cost the traced
 * program ~20% of its time. */
SEC("tracepoint/syscalls/sys_exit_mmap")
int on_mmap_exit(struct sys_exit_record *ctx)
{
	long ret = ctx->ret;

	/* mmap returns a page-aligned address or an error. */
	if (!hold_mappings || (ret & 0xfff))
		return 0;
	return hold_mapping(ret);
}

/* The same from the raw syscall exit tracepoint, where the kernel has no
 * syscall tracepoints (or tracefs is not mounted): it runs for every
 * syscall of every process; most leave after two compares, page-aligned
 * results after two reads more. */
SEC("raw_tp/sys_exit")
int BPF_PROG(on_syscall_exit, struct pt_regs *regs, long ret)
{
	if (!hold_mappings || (ret & 0xfff))
		return 0;
	if (BPF_CORE_READ(regs, orig_ax) != __NR_MMAP || !(BPF_CORE_READ(regs, dx) & PROT_EXEC))
		return 0;
	return hold_mapping(ret);
}

/* execve(2): the thread's frames of the old image end; a binary the
 * collector does not know is held (its interpreter is mapped by the
 * kernel too, but holds no sleds). */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct sled_file_id id = {};
	struct inode *inode = BPF_CORE_READ(bprm, file, f_inode);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!inode || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	if (!no_events) {
		push_control(SLED_COOKIE(SLED_KIND_EXEC, 0, 0), 0);
		push_ident(tgid, (__u32)bpf_get_current_pid_tgid(), NULL, true);
	}
	if (!hold_mappings)
		return 0;
	id.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	id.ino = BPF_CORE_READ(inode, i_ino);
	return hold(tgid, &id, 0);
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
	push_ident(tgid, BPF_CORE_READ(task, pid), comm, false);
	return 0;
}
