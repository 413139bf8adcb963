/* SPDX-License-Identifier: MIT */
/* uprobe_bytes.h: what the kernel leaves in a process's text where a
 * uprobe sits on a 5-byte nop (the first instruction of every rewritten
 * sled, sled_patch.h), for record to put back the text of a forked child
 * (record/hold/fork_text.c):
 *   optimized    e8 <rel32>       call rel32 into the process's
 *                                 [uprobes-trampoline] page
 *   unoptimized  cc 1f 44 00 00   int3 over the nop's first byte (read
 *                                 back from a probed process)
 * No XRay sled starts with e8 and a rewritten one starts with the nop, so
 * a call at a sled is the kernel's. */
#ifndef SLEDTRACE_X86_UPROBE_BYTES_H
#define SLEDTRACE_X86_UPROBE_BYTES_H

#define ARCH_UPROBE_OPTIMIZED_BYTE 0xe8 /* the first byte of an optimized probe */
#define ARCH_UPROBE_UNOPTIMIZED 0xcc, 0x1f, 0x44, 0x00, 0x00 /* an array's initializers */

#endif
