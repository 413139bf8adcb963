/* SPDX-License-Identifier: MIT */
/* num_text.h: integers as text without printf, for the paths that write
 * one per call (captured values, Chrome JSON): vfprintf's parsing of its
 * format was the largest part of the collector's time per captured
 * call.  Each writes at p and returns the number of characters, with no
 * terminating NUL; NUM_TEXT_MAX bytes are always enough. */
#ifndef SLEDTRACE_NUM_TEXT_H
#define SLEDTRACE_NUM_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define NUM_TEXT_MAX 21 /* "-9223372036854775808", "18446744073709551615", "0x" + 16 */

size_t num_text__u64(char *p, uint64_t v);
size_t num_text__i64(char *p, int64_t v);
/* "0x" and lower-case hex digits, no leading zeros. */
size_t num_text__hex(char *p, uint64_t v);

#endif
