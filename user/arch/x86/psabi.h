/* SPDX-License-Identifier: MIT */
/* psabi.h: what the x86-64 System V ABI (and glibc's port to it) fixes
 * that sledtrace relies on outside the instruction bytes. */
#ifndef SLEDTRACE_X86_PSABI_H
#define SLEDTRACE_X86_PSABI_H

#include "object/params.h"
#include "sledtrace.h"

/* Where DWARF's parameters are at a function's first instruction: the
 * integer class in rdi, rsi, rdx, rcx, r8, r9 (the capture record's
 * registers, include/arch/sledtrace_x86.h), returned in rax and rdx.  A
 * value returned in memory has its address passed in rdi, which moves
 * every argument one register on. */
static inline struct param_abi x86_param_abi(void)
{
	return (struct param_abi){ .arg_regs = SLED_CAP_NREG, .ret_regs = 2, .ret_in_arg = true };
}

/* glibc's dynamic loader's file name on x86-64 (PT_INTERP), which lists
 * what an executable links when run with --list (process/needed.c). */
#define ARCH_LOADER_GLOB "ld-linux-x86-64.so.*"

#endif
