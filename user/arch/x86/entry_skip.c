// SPDX-License-Identifier: MIT
/* entry_skip.c: see entry_skip.h.  Only `test r, r` (opcode 85 with a
 * register ModRM, with or without a REX prefix) is stepped over: nothing
 * else at an entry is known to leave every register as it was. */
#include "arch/x86/entry_skip.h"

size_t x86_entry_skip(const uint8_t *code, size_t n)
{
	size_t rex = n > 0 && (code[0] & 0xf0) == 0x40;

	if (n >= rex + 2 && code[rex] == 0x85 && (code[rex + 1] & 0xc0) == 0xc0)
		return rex + 2;
	return 0;
}
