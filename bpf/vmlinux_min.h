/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* vmlinux_min.h: the few kernel types bpf/sledtrace.bpf.c uses, for build
 * hosts without /sys/kernel/btf/vmlinux (containers, build farms).  Written
 * by hand, not dumped: the types carry preserve_access_index, so libbpf
 * relocates every field access against the running kernel's BTF at load
 * time, and only the fields named here need to exist.  Add a type here
 * when the BPF program starts using one. */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef __bpf__
#error "vmlinux_min.h is for BPF programs (clang -target bpf)"
#endif

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u32 __wsum;
typedef _Bool bool;
enum { false = 0, true = 1 };
typedef int pid_t;
typedef __u32 dev_t;

/* uapi/linux/bpf.h: the map types and ring buffer flags in use.  The
 * values are kernel ABI and never change. */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_RINGBUF = 27,
};

enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
};

/* include/linux/pid.h: the signal scopes (kernel ABI of the kfunc). */
enum pid_type {
	PIDTYPE_PID,
	PIDTYPE_TGID,
	PIDTYPE_PGID,
	PIDTYPE_SID,
	PIDTYPE_MAX,
};

/* The open-coded VMA iterator's state: opaque, its size is ABI. */
struct bpf_iter_task_vma {
	__u64 __opaque[1];
} __attribute__((aligned(8)));

struct kernel_siginfo;

enum {
	BPF_F_NO_PREALLOC = 1,
};

enum {
	BPF_RB_NO_WAKEUP = 1,
	BPF_RB_FORCE_WAKEUP = 2,
};

enum {
	BPF_RB_AVAIL_DATA = 0,
	BPF_RB_RING_SIZE = 1,
	BPF_RB_CONS_POS = 2,
	BPF_RB_PROD_POS = 3,
};

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

#if defined(__TARGET_ARCH_x86)
/* arch/x86/include/asm/ptrace.h, x86-64: the uprobe context. */
struct pt_regs {
	unsigned long r15;
	unsigned long r14;
	unsigned long r13;
	unsigned long r12;
	unsigned long bp;
	unsigned long bx;
	unsigned long r11;
	unsigned long r10;
	unsigned long r9;
	unsigned long r8;
	unsigned long ax;
	unsigned long cx;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ip;
	unsigned long cs;
	unsigned long flags;
	unsigned long sp;
	unsigned long ss;
};
#else
#error "vmlinux_min.h describes x86-64 only: build where /sys/kernel/btf/vmlinux exists"
#endif

/* Processes and the files they run: fork, exec and mmap holds.  The pads
 * keep each field at the offset it has on our kernels, so the object is
 * the same instructions as one built from kernel BTF (CO-RE relocates the
 * offsets anyway; tests/check_vmlinux_min.py compares the code). */
struct super_block {
	char __pad0[16];
	dev_t s_dev;
};

struct inode {
	char __pad0[40];
	struct super_block *i_sb;
	char __pad1[16];
	unsigned long i_ino;
};

struct file {
	char __pad0[32];
	struct inode *f_inode;
};

struct vm_area_struct {
	char __pad0[32];
	unsigned long vm_flags; /* in an anonymous union in the kernel's */
	char __pad1[48];
	struct file *vm_file;
};

struct mm_struct {
	char __pad0[488];
	unsigned long arg_start;
	unsigned long arg_end;
};

struct task_struct {
	char __pad0[1136];
	struct mm_struct *mm;
	struct files_struct *files;
	char __pad1[120];
	pid_t pid;
	pid_t tgid;
};

/* Only through CO-RE: the file behind a descriptor (mmap's entry). */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct linux_binprm {
	char __pad0[64];
	struct file *file;
};

#pragma clang attribute pop

#endif
