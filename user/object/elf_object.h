/* SPDX-License-Identifier: MIT */
/* elf_object.h: one ELF file opened with libelf, and the facts about it that
 * attaching needs: where a virtual address lives in the file (uprobe offsets
 * are file offsets), its build-id, its symbols, and whether an exception can
 * unwind through its frames. */
#ifndef SLEDTRACE_ELF_OBJECT_H
#define SLEDTRACE_ELF_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_object;

struct elf_symbol {
	const char *name; /* raw (mangled) name, owned by the object */
	uint64_t addr;	  /* st_value */
	uint64_t size;
	bool defined_func; /* STT_FUNC (or GNU_IFUNC) with a section */
};

/* Opens path.  On failure returns a negative errno and writes one line
 * (no trailing newline) into err that names the file and the problem. */
int elf_object__open(const char *path, struct elf_object **out, char *err, size_t errlen);
void elf_object__free(struct elf_object *obj);

const char *elf_object__path(const struct elf_object *obj);
void *elf_object__elf(const struct elf_object *obj); /* the libelf Elf * */
/* The separate debug file whose symbols a stripped obj took
 * (elf_object__add_debug_symbols), NULL: none.  Same addresses as obj. */
const struct elf_object *elf_object__debug_file(const struct elf_object *obj);
bool elf_object__is_pie_or_dso(const struct elf_object *obj); /* ET_DYN */
/* Hex build-id, "" when the file has none. */
const char *elf_object__build_id(const struct elf_object *obj);
/* File offset of virtual address vaddr through the PT_LOAD that holds it;
 * -ENOENT when no executable segment holds it. */
int elf_object__vaddr_to_offset(const struct elf_object *obj, uint64_t vaddr, uint64_t *off);
/* Reads size bytes at virtual address vaddr; -ENOENT if not in the file. */
int elf_object__read_vaddr(const struct elf_object *obj, uint64_t vaddr, void *buf, size_t size);
/* True when exceptions or panics can unwind through this object's frames:
 * it carries .gcc_except_table or refers to a personality routine or
 * _Unwind_Resume. */
bool elf_object__can_unwind(const struct elf_object *obj);

/* All symbols of .symtab and .dynsym, deduplicated by (addr, name). */
size_t elf_object__symbol_count(const struct elf_object *obj);
const struct elf_symbol *elf_object__symbol(const struct elf_object *obj, size_t i);
/* The defined function symbol named name (exact), or NULL. */
const struct elf_symbol *elf_object__find_symbol(const struct elf_object *obj, const char *name);
/* Whether the object has a .symtab (false: stripped, .dynsym at most). */
bool elf_object__has_symtab(const struct elf_object *obj);
/* Adds the symbols of obj's separate debug file at path; -ESTALE (with
 * err) when its build-id is another build's. */
int elf_object__add_debug_symbols(struct elf_object *obj, const char *path, char *err,
				  size_t errlen);
/* The best function symbol containing addr (prefers global, sized), or NULL. */
const struct elf_symbol *elf_object__symbol_at(const struct elf_object *obj, uint64_t addr);

#endif
