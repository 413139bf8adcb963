/* SPDX-License-Identifier: MIT */
/* srcloc.h: source file and line of function addresses from DWARF, found in
 * the object itself or in separate debug info (build-id, .gnu_debuglink). */
#ifndef SLEDTRACE_SRCLOC_H
#define SLEDTRACE_SRCLOC_H

#include <stdint.h>

#include "object/elf_object.h"

struct srcloc;

/* Never fails hard: an object without DWARF yields a srcloc that knows no
 * lines.  Returns NULL only on allocation failure. */
struct srcloc *srcloc__open(const struct elf_object *obj);
void srcloc__free(struct srcloc *sl);
/* File and line of the function at vaddr (link-time address).  *file is
 * absolute and normalized whenever DWARF gives the directories to make it
 * so (srcpath.h), and stays valid until srcloc__free.  Returns 0, -ENOENT
 * or -ENOMEM. */
int srcloc__lookup(struct srcloc *sl, uint64_t vaddr, const char **file, uint32_t *line);

#endif
