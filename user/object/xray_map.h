/* SPDX-License-Identifier: MIT */
/* xray_map.h: the LLVM XRay instrumentation map (section xray_instr_map) of
 * one object, decoded into functions and their sleds.  Versions 0-2 (v2 is
 * PC-relative, older ones absolute and relocated in PIE/DSOs). */
#ifndef SLEDTRACE_XRAY_MAP_H
#define SLEDTRACE_XRAY_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "object/elf_object.h"

enum xray_sled_kind {
	XRAY_SLED_ENTRY = 0,
	XRAY_SLED_EXIT = 1,
	XRAY_SLED_TAIL = 2,
	/* 3 LOG_ARGS_ENTER, 4 CUSTOM_EVENT, 5 TYPED_EVENT: counted, not probed */
};

struct xray_sled {
	uint64_t addr;	      /* virtual address of the sled */
	uint64_t file_offset; /* what a uprobe needs */
	uint8_t kind;	      /* enum xray_sled_kind */
};

struct xray_function {
	uint32_t id;	     /* XRay function id, 1-based */
	uint64_t addr;	     /* function address (the map's `function` field) */
	uint32_t first_sled; /* index into xray_map.sleds */
	uint32_t nsleds;
	uint32_t nentry, nexit, ntail;
};

struct xray_map {
	struct xray_function *funcs; /* funcs[i].id == i + 1 */
	size_t nfuncs;
	struct xray_sled *sleds; /* grouped by function, map order */
	size_t nsleds;
	size_t ignored_sleds; /* kinds other than ENTRY/EXIT/TAIL */
	unsigned version;     /* highest entry version seen */
};

/* Decodes obj's map.  Returns 0, -ENODATA when the object has no sleds (err
 * then says how to build with sleds), or another negative errno with err. */
int xray_map__load(struct elf_object *obj, struct xray_map **out, char *err, size_t errlen);
/* Decodes a raw section image (for fuzzing and unit tests): sect_addr is the
 * section's virtual address; relocated absolute entries are not resolved. */
int xray_map__parse(const uint8_t *data, size_t size, uint64_t sect_addr, struct xray_map **out,
		    char *err, size_t errlen);
void xray_map__free(struct xray_map *map);
/* 1 when the file at path has an xray_instr_map section, 0 when not,
 * -ENOEXEC when it is no ELF file, another negative errno if unreadable. */
int xray_map__in_file(const char *path);

#endif
