/* SPDX-License-Identifier: MIT */
/* x86_leaf.h: is an x86-64 function a leaf - one that never calls and never
 * jumps out of its own body?  No exception or panic can ever unwind through
 * a leaf's frame (nothing runs below it), so its return may be watched with
 * a cheap uretprobe even in an object that can unwind.
 *
 * The answer must never be a false "leaf": the decoder knows instruction
 * lengths only (it is not a disassembler), treats anything it does not
 * recognise as "not a leaf", and the caller checks that decoding passes
 * exactly through every sled the compiler placed in the function. */
#ifndef SLEDTRACE_X86_LEAF_H
#define SLEDTRACE_X86_LEAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the instruction at code[0] (at most avail bytes), or 0 when it
 * is not one this decoder knows. */
size_t x86_insn_length(const uint8_t *code, size_t avail);

/* code holds the whole function, loaded at vaddr.  must_hit lists
 * addresses (the function's sleds) that must each begin an instruction. */
bool x86_is_leaf(const uint8_t *code, size_t size, uint64_t vaddr, const uint64_t *must_hit,
		 size_t nmust_hit);

#endif
