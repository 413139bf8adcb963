/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* sledtrace_arch.h: the one place include/sledtrace.h picks the
 * architecture's part of the contract between the BPF programs and the
 * collector.  The BPF side is compiled with -D__TARGET_ARCH_<arch>, user
 * space with the compiler's own macro; both must pick the same header. */
#ifndef SLEDTRACE_ARCH_CONTRACT_H
#define SLEDTRACE_ARCH_CONTRACT_H

#if defined(__TARGET_ARCH_x86) || defined(__x86_64__)
#include "arch/sledtrace_x86.h"
#else
#error "sledtrace's records know x86-64 only: add include/arch/sledtrace_<arch>.h (docs/DESIGN.md, Porting)"
#endif

#endif
