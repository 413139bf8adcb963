/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* mmap_hold.h: new executable mappings of traced processes held until
 * their objects are probed (docs/DESIGN.md, "Coverage"): the mmap syscall
 * tracepoints, or the raw syscall exit where tracefs has none, which also
 * catches forked children (fork_hold.h).  Included by sledtrace.bpf.c
 * after hold(), the in-flight marks and fork_hold.h. */
#ifndef SLEDTRACE_BPF_MMAP_HOLD_H
#define SLEDTRACE_BPF_MMAP_HOLD_H

/* The file of the new mapping at ret, from the mapping itself.
 * bpf_find_vma only tries the mm's lock, and an attach that is putting
 * breakpoints into this very process holds it: a file that cannot be
 * read is held all the same, unnamed (the collector reads the maps). */
static __always_inline int hold_mapping(__u32 tgid, long ret)
{
	struct sled_file_id id = {}, unknown = {};
	long err = bpf_find_vma(bpf_get_current_task_btf(), (__u64)ret, file_of_vma, &id, 0);

	if (err && err != -ENOENT)
		return holds_off ? 0 : hold_as(SLED_KIND_MAPPED, tgid, &unknown, (__u64)ret);
	return hold(tgid, &id, (__u64)ret);
}

/* The records of the syscall tracepoints.  Not kernel types that CO-RE
 * could relocate but the layouts tracefs publishes for the events
 * (events/syscalls/sys_{enter,exit}_mmap/format: the common fields in 8
 * bytes, __syscall_nr at 8, then args[6] or ret at 16), which perf and
 * every tracepoint program read by offset and the kernel keeps. */
struct sys_enter_record {
	__u64 common;
	int nr;
	int pad;
	unsigned long args[6];
};

struct sys_exit_record {
	__u64 common;
	int nr;
	int pad;
	long ret;
};

/* The file behind descriptor fd of the current process. */
static __always_inline void file_of_fd(int fd, struct sled_file_id *id)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *f = NULL;
	struct inode *inode;

	if (!fdt || fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) || !f)
		return;
	inode = BPF_CORE_READ(f, f_inode);
	if (inode) {
		id->dev = BPF_CORE_READ(inode, i_sb, s_dev);
		id->ino = BPF_CORE_READ(inode, i_ino);
	}
}

/* mmap(2) of a file not known with PROT_EXEC begins (inflight_begin). */
SEC("tracepoint/syscalls/sys_enter_mmap")
int on_mmap_enter(struct sys_enter_record *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct sled_file_id id = {};
	__u32 tgid = pid_tgid >> 32;

	if (!hold_mappings || holds_off || !(ctx->args[2] & PROT_EXEC) || (int)ctx->args[4] < 0 ||
	    !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	file_of_fd((int)ctx->args[4], &id);
	if (id.ino && !bpf_map_lookup_elem(&known_files, &id))
		inflight_begin(tgid, (__u32)pid_tgid, &id);
	return 0;
}

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
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	long ret = ctx->ret;

	__u32 tid = (__u32)pid_tgid;
	struct sled_file_id *file;

	if (!hold_mappings || !bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	/* A mapping the entry marked needs no lookup; any other is looked up
	 * (the entry hook may be missing, or attached while this mmap ran).
	 * mmap returns a page-aligned address or an error. */
	file = bpf_map_lookup_elem(&inflight_threads, &tid);
	if (!(ret & 0xfff) && file)
		hold(tgid, file, (__u64)ret);
	else if (!(ret & 0xfff))
		hold_mapping(tgid, ret);
	inflight_end(tgid, tid);
	return 0;
}

/* Set by the collector when the raw syscall exit is its mmap hook. */
bool mmap_by_raw_exit = false;

/* The same from the raw syscall exit tracepoint, where the kernel has no
 * syscall tracepoints (or tracefs is not mounted): it runs for every
 * syscall of every process; most leave after two compares, page-aligned
 * results after two reads more. */
SEC("raw_tp/sys_exit")
int BPF_PROG(on_syscall_exit, struct pt_regs *regs, long ret)
{
	__u32 tgid;

	fork_hold_take(regs, ret);
	if (!mmap_by_raw_exit || (ret & 0xfff))
		return 0;
	if (ARCH_SYSCALL_NR(regs) != ARCH_NR_MMAP || !(ARCH_SYSCALL_ARG3(regs) & PROT_EXEC))
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!bpf_map_lookup_elem(&traced, &tgid))
		return 0;
	return hold_mapping(tgid, ret);
}

#endif
