/* SPDX-License-Identifier: MIT */
/* symbols.h: names (and source locations when known) for the instrumented
 * functions of one object, indexed by XRay function id. */
#ifndef SLEDTRACE_SYMBOLS_H
#define SLEDTRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/elf_object.h"
#include "object/xray_map.h"

struct symbol_info {
	const char *mangled; /* raw symbol name; "" when none was found */
	const char *name;    /* display name: demangled unless opts.mangled */
	const char *file;    /* source file or NULL; only after symbols__locate */
	uint32_t line;	     /* 0 when unknown */
};

struct symbols_opts {
	bool mangled;	/* keep raw names */
	bool no_srcloc; /* skip DWARF lookups */
};

struct symbols;

/* Names every function of map; a function without a symbol is named
 * "fn#<id>@0x<addr>". */
int symbols__load(struct elf_object *obj, const struct xray_map *map,
		  const struct symbols_opts *opts, struct symbols **out, char *err, size_t errlen);
void symbols__free(struct symbols *syms);
/* id is the XRay function id (1-based).  Names only: file and line are
 * those of an earlier symbols__locate (NULL/0 before). */
const struct symbol_info *symbols__get(const struct symbols *syms, uint32_t id);
/* The same with file and line, looked up in DWARF on the first call for id
 * (source locations cost a DWARF read, so they are found only for the
 * functions someone asks about).  file stays valid until symbols__free. */
const struct symbol_info *symbols__locate(struct symbols *syms, uint32_t id);

#endif
