/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* sledtrace_x86.h: what the records of include/sledtrace.h hold on x86-64.
 * bpf/arch/x86.h fills the registers, user/arch/x86/psabi.h tells the
 * collector which parameter is in which of them. */
#ifndef SLEDTRACE_CONTRACT_X86_H
#define SLEDTRACE_CONTRACT_X86_H

/* The values a capture record holds (struct sled_capture.val): the SysV
 * ABI's integer argument registers in order, rdi, rsi, rdx, rcx, r8, r9;
 * at a return rax and rdx, the rest 0.  The record's layout has no
 * padding for a count that is 2 modulo 4 (sledtrace.h checks it). */
#define SLED_CAP_NREG 6

#endif
