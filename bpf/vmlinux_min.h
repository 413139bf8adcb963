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

/* Every struct below declares only the fields sledtrace.bpf.c reads, in
 * any order and at whatever offset they fall here: those offsets are never
 * used.  preserve_access_index makes each access a CO-RE relocation, which
 * libbpf resolves by field name against the running kernel's BTF, so the
 * layout of no kernel is written down by hand (tests/check_vmlinux_min.py
 * checks that every field here is relocated).  A field that is not read
 * does not belong here, padding least of all. */
#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

#if defined(__TARGET_ARCH_x86)
/* arch/x86/include/asm/ptrace.h, x86-64: the uprobe context (sp, and the
 * argument and return registers --capture reads) and the raw syscall
 * exit's registers (the syscall number and mmap's prot). */
struct pt_regs {
	unsigned long di;
	unsigned long si;
	unsigned long dx;
	unsigned long cx;
	unsigned long r8;
	unsigned long r9;
	unsigned long ax;
	unsigned long orig_ax;
	unsigned long sp;
};
#else
#error "vmlinux_min.h describes x86-64 only: build where /sys/kernel/btf/vmlinux exists"
#endif

/* Processes and the files they run: fork, exec and mmap holds. */
struct super_block {
	dev_t s_dev;
};

struct inode {
	struct super_block *i_sb;
	unsigned long i_ino;
};

struct file {
	struct inode *f_inode;
};

struct vm_area_struct {
	unsigned long vm_flags; /* in an anonymous union in newer kernels: matched by name */
	struct file *vm_file;
};

struct mm_struct {
	unsigned long arg_start;
	unsigned long arg_end;
};

struct task_struct {
	unsigned int __state;
	void *stack; /* the task's kernel stack (bpf/causes.h) */
	struct mm_struct *mm;
	struct files_struct *files;
	pid_t pid;
	pid_t tgid;
};

/* The file behind a descriptor (mmap's entry). */
struct fdtable {
	unsigned int max_fds;
	struct file **fd;
};

struct files_struct {
	struct fdtable *fdt;
};

struct linux_binprm {
	struct file *file;
};

#pragma clang attribute pop

#endif
