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
/* The system calls a uprobe itself makes the thread enter: the kernel's
 * trampolines for optimized uprobes (uprobe) and returns (uretprobe).  A
 * probe's syscalls are not the program's. */
#define ARCH_NR_URETPROBE 335
#define ARCH_NR_UPROBE 336
/* Page faults come from the exceptions tracepoint, which x86 alone has;
 * bit 4 of the error code (X86_PF_INSTR) marks an instruction fetch, whose
 * faults depend on probing (a probed text page is already present). */
#define ARCH_FAULT_DATA(error_code) (!((error_code) & (1ul << 4)))
/* At a syscall's exit: its number, and its third argument (mmap's prot). */
#define ARCH_SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)
#define ARCH_SYSCALL_ARG3(regs) BPF_CORE_READ(regs, dx)
/* The user registers a task entered the kernel with: a system call saves
 * its number in orig_ax, an interrupt the complement of its vector
 * (negative).  An interrupt that came from user mode runs on the task's
 * own stack, so only this tells it from the task's own doing.  regs is
 * bpf_task_pt_regs()'s, which the verifier lets the program read directly. */
#define ARCH_ENTERED_BY_INTERRUPT(regs) ((long)(regs)->orig_ax < 0)
/* At a uretprobe the return has popped the return address: the frame's
 * slot is one word below the stack pointer.  At a sled (entry, exit,
 * tail: before the call's `ret` or `jmp`) the stack pointer is the slot. */
#define ARCH_RET_SLOT(sp) ((sp)-8)
/* The SysV ABI's integer argument registers in order (at an entry sled,
 * the function's first instruction, they still hold the arguments), and
 * its integer return registers (at an exit sled or a uretprobe). */
#define ARCH_ARG_REGS(ctx, v)       \
	do {                        \
		(v)[0] = (ctx)->di; \
		(v)[1] = (ctx)->si; \
		(v)[2] = (ctx)->dx; \
		(v)[3] = (ctx)->cx; \
		(v)[4] = (ctx)->r8; \
		(v)[5] = (ctx)->r9; \
	} while (0)
#define ARCH_RET_REGS(ctx, v)                          \
	do {                                           \
		(v)[0] = (ctx)->ax;                    \
		(v)[1] = (ctx)->dx;                    \
		(v)[2] = (v)[3] = (v)[4] = (v)[5] = 0; \
	} while (0)

#endif
