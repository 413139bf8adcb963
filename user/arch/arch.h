/* SPDX-License-Identifier: MIT */
/* arch.h: the one place user space picks its architecture.  What sledtrace
 * knows of an instruction set and its ABI is under arch/<arch>/, behind
 * these names:
 *   arch_is_leaf(code, size, vaddr, sleds, nsleds)  a function that never
 *       calls or jumps out (never a false yes): its return may be watched
 *       with a uretprobe even in an object that can unwind;
 *   arch_patch_sleds(map, image, size, why, whylen)  rewrite every sled of
 *       a copy so that it starts with an instruction the kernel runs as a
 *       call (x86-64: a 5-byte nop), or leave it untouched;
 *   ARCH_NR_UPROBE  the uprobe(2) system call, to ask whether the kernel
 *       runs such probes as calls;
 *   ARCH_UPROBE_OPTIMIZED_BYTE, ARCH_UPROBE_UNOPTIMIZED  the first byte of
 *       such a probe once the kernel made it a call, and the bytes of the
 *       probe before (uprobe_bytes.h), to repair a forked child's text;
 *   arch_probe_site()  a function of sledtrace's own that starts with what
 *       a rewritten sled's probe hits, and its unprobed twin, for record to
 *       time a probe hit (probe_sites.h);
 *   arch_param_abi()  which registers a function's integer parameters and
 *       return value are in (struct param_abi, psabi.h);
 *   arch_entry_skip(code, n)  bytes to step over at a function's entry so
 *       that a uprobe there is emulated, not single-stepped, and still sees
 *       the arguments (entry_skip.h);
 *   ARCH_LOADER_GLOB  the file name of glibc's dynamic loader.
 * The records' register count is in include/arch/, the BPF side has its
 * own seam (bpf/arch/arch.h); docs/DESIGN.md, "Porting", lists the rest. */
#ifndef SLEDTRACE_ARCH_H
#define SLEDTRACE_ARCH_H

#if defined(__x86_64__)
#include "arch/x86/entry_skip.h"
#include "arch/x86/probe_sites.h"
#include "arch/x86/psabi.h"
#include "arch/x86/sled_patch.h"
#include "arch/x86/syscalls.h"
#include "arch/x86/uprobe_bytes.h"
#include "arch/x86/x86_leaf.h"
#define arch_is_leaf x86_is_leaf
#define arch_patch_sleds sled_patch__apply
#define arch_probe_site x86_probe_site
#define arch_param_abi x86_param_abi
#define arch_entry_skip x86_entry_skip
#else
#error "sledtrace knows x86-64 only: add user/arch/<arch>/ (docs/DESIGN.md, Porting)"
#endif

#endif
