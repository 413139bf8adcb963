/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* arch/x86.h: what the BPF programs know about x86-64, and nothing else.
 * A port (AArch64: LLVM emits XRay sleds there too) provides the same
 * macros in arch/<arch>.h; docs/DESIGN.md, "Porting", lists what else. */
#ifndef SLEDTRACE_BPF_ARCH_X86_H
#define SLEDTRACE_BPF_ARCH_X86_H

/* mmap(2)'s number, for the raw syscall-exit fallback. */
#define ARCH_NR_MMAP 9
/* The system calls a forked child returns from. */
#define ARCH_NR_CLONE 56
#define ARCH_NR_FORK 57
#define ARCH_NR_VFORK 58
#define ARCH_NR_CLONE3 435
/* At a syscall's exit: its number, and its third argument (mmap's prot). */
#define ARCH_SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)
#define ARCH_SYSCALL_ARG3(regs) BPF_CORE_READ(regs, dx)
/* At a uretprobe the return has popped the return address: the frame's
 * slot is one word below the stack pointer.  At a sled (entry, exit,
 * tail: before the call's `ret` or `jmp`) the stack pointer is the slot. */
#define ARCH_RET_SLOT(sp) ((sp)-8)

#endif
