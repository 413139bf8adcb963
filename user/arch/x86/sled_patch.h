/* SPDX-License-Identifier: MIT */
/* sled_patch.h: rewriting x86-64 XRay sleds in a copy of an object's bytes
 * so that every sled starts with a 5-byte nop.  The kernel runs a uprobe on
 * a 5-byte nop as a call to a trampoline; on the sleds' own first
 * instructions (`jmp` at entries and tails, `ret` at exits) it emulates or
 * single-steps, which costs 2x and ~60x more.  The rewritten sleds execute
 * the same way as the originals:
 *   entry, tail  eb 09 <nop9>  ->  nop5 nop6      (both fall through)
 *   exit         c3 <nop10>    ->  nop5 ret nop5  (returns)
 * Nothing is rewritten unless every sled matches its expected bytes. */
#ifndef SLEDTRACE_SLED_PATCH_H
#define SLEDTRACE_SLED_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "object/xray_map.h"

#define SLED_PATCH_BYTES 11 /* every x86-64 XRay sled */

/* Checks every sled of map inside image (the whole file, indexed by file
 * offset) and, only if all match, rewrites them in place.  Returns 0, or
 * -EILSEQ / -ERANGE / -ENOTSUP with one line in why (sled address and what
 * was found), leaving image unchanged. */
int sled_patch__apply(const struct xray_map *map, uint8_t *image, size_t size, char *why,
		      size_t whylen);

#endif
