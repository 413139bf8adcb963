/* SPDX-License-Identifier: MIT */
/* syscalls.h: x86-64 system call numbers the libc headers of Debian 12
 * may not have yet. */
#ifndef SLEDTRACE_ARCH_X86_SYSCALLS_H
#define SLEDTRACE_ARCH_X86_SYSCALLS_H

/* uprobe(2), Linux 6.18: what the kernel's nop5 trampoline calls.  Called
 * from anywhere else it answers ENXIO, where it does not exist ENOSYS:
 * sled_rewrite.c asks it whether rewritten sleds run as calls. */
#define ARCH_NR_UPROBE 336

#endif
