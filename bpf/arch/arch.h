/* SPDX-License-Identifier: MIT OR GPL-2.0-only */
/* arch/arch.h: the one place the BPF side picks its architecture. */
#ifndef SLEDTRACE_BPF_ARCH_H
#define SLEDTRACE_BPF_ARCH_H

#if defined(__TARGET_ARCH_x86)
#include "x86.h"
#else
#error "sledtrace's BPF side knows x86-64 only: add bpf/arch/<arch>.h (docs/DESIGN.md, Porting)"
#endif

#endif
