/* SPDX-License-Identifier: MIT */
/* symbol_map.h: --no-xray.  For a binary without sleds, a function map made
 * from its symbol table (STT_FUNC with a size), one ENTRY "sled" at each
 * function's first instruction and no exit sleds, so the rest of the
 * pipeline (names, filters, probes, frames) runs unchanged.  At a
 * function's first instruction the stack pointer addresses the return
 * address exactly as at an XRay entry sled. */
#ifndef SLEDTRACE_SYMBOL_MAP_H
#define SLEDTRACE_SYMBOL_MAP_H

#include <stddef.h>

#include "object/elf_object.h"
#include "object/xray_map.h"

/* A stripped object's symbols come from its debug file under debug_root
 * (NULL: /usr/lib/debug; see debuginfo.h).  -ENODATA when no sized
 * function symbol is left, with err saying which package has them. */
int symbol_map__build(struct elf_object *obj, const char *debug_root, struct xray_map **out,
		      char *err, size_t errlen);

#endif
