/* SPDX-License-Identifier: MIT */
/* entry_skip.h: where at a function's entry a uprobe costs least.  The
 * kernel emulates a few instructions at a probe (push, jumps, calls, nops)
 * and runs any other out of line, single-stepped: about ten times the
 * cost on the machines measured.  glibc's free begins with `test %rdi,
 * %rdi`, which it single-steps; the `je` after it it emulates.  A test of
 * two registers changes only the flags, so a probe placed after it sees
 * the arguments as they came (record --costs reads them there). */
#ifndef SLEDTRACE_X86_ENTRY_SKIP_H
#define SLEDTRACE_X86_ENTRY_SKIP_H

#include <stddef.h>
#include <stdint.h>

/* How many bytes from code[0] (n of them read) to step over before the
 * probe: the length of a leading register-to-register test, else 0. */
size_t x86_entry_skip(const uint8_t *code, size_t n);

#endif
