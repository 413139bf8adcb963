/* SPDX-License-Identifier: MIT */
/* arch.h: the one place user space picks its architecture.  What sledtrace
 * knows of an instruction set is under arch/<arch>/, behind these names:
 *   arch_is_leaf(code, size, vaddr, sleds, nsleds)  a function that never
 *       calls or jumps out (never a false yes): its return may be watched
 *       with a uretprobe even in an object that can unwind;
 *   arch_patch_sleds(map, image, size, why, whylen)  rewrite every sled of
 *       a copy so that it starts with an instruction the kernel runs as a
 *       call (x86-64: a 5-byte nop), or leave it untouched;
 *   ARCH_NR_UPROBE  the uprobe(2) system call, to ask whether the kernel
 *       runs such probes as calls;
 *   arch_probe_site()  a function of sledtrace's own that starts with what
 *       a rewritten sled's probe hits, and its unprobed twin, for record to
 *       time a probe hit (probe_sites.h).
 * The BPF side has its own seam (bpf/arch.h); docs/DESIGN.md, "Porting",
 * lists the rest of what a port needs. */
#ifndef SLEDTRACE_ARCH_H
#define SLEDTRACE_ARCH_H

#if defined(__x86_64__)
#include "arch/x86/probe_sites.h"
#include "arch/x86/sled_patch.h"
#include "arch/x86/syscalls.h"
#include "arch/x86/x86_leaf.h"
#define arch_is_leaf x86_is_leaf
#define arch_patch_sleds sled_patch__apply
#define arch_probe_site x86_probe_site
#else
#error "sledtrace knows x86-64 only: add user/arch/<arch>/ (docs/DESIGN.md, Porting)"
#endif

#endif
