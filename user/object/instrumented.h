/* SPDX-License-Identifier: MIT */
/* instrumented.h: one object file opened for tracing: its ELF, its function
 * map (XRay sleds, or the symbol table with --no-xray) and its functions'
 * names.  list, filter and record open every object this one way, so the
 * three agree on what an object's functions are. */
#ifndef SLEDTRACE_INSTRUMENTED_H
#define SLEDTRACE_INSTRUMENTED_H

#include <stdbool.h>
#include <stddef.h>

#include "object/elf_object.h"
#include "object/symbols.h"
#include "object/xray_map.h"

struct instrumented {
	struct elf_object *elf;
	struct xray_map *map;
	struct symbols *syms;
};

struct instrumented_opts {
	bool no_xray;	       /* functions from symbols, not sleds (symbol_map.h) */
	const char *debug_dir; /* with no_xray: where debug files are; NULL: default */
	struct symbols_opts names;
};

/* Fills io, or leaves it empty and says in err what is wrong with path. */
int instrumented__open(struct instrumented *io, const char *path,
		       const struct instrumented_opts *opts, char *err, size_t errlen);
/* Frees what io holds and empties it; an empty io is fine. */
void instrumented__close(struct instrumented *io);

#endif
