// SPDX-License-Identifier: MIT
/* symbols.c: display names and source locations of an object's XRay
 * functions, names resolved once so that writers and reports only index by
 * id, source locations on demand (they cost a DWARF read).
 * Raw names point into the elf_object, so a symbols table must be freed
 * before the object it was loaded from. */
#include "object/symbols.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object/demangle.h"
#include "object/srcloc.h"

struct symbols {
	struct symbol_info *infos; /* infos[id - 1] */
	char **owned;		   /* per id: the name buffer to free, or NULL */
	bool *located;		   /* per id: file and line looked up */
	uint64_t *addrs;	   /* per id: the function's address */
	size_t n;
	struct srcloc *sl; /* owns the file strings */
};

/* A function that starts inside a symbol rather than at one (split or
 * outlined code) is named after its container with the offset, so the name
 * never claims to be the symbol's own entry. */
static char *name_with_offset(const char *name, uint64_t off)
{
	char *s;

	if (asprintf(&s, "%s+0x%" PRIx64, name, off) < 0)
		return NULL;
	return s;
}

static int name_function(struct symbols *syms, size_t i, const struct elf_object *obj,
			 const struct xray_function *f, const struct symbols_opts *opts)
{
	const struct elf_symbol *sym = elf_object__symbol_at(obj, f->addr);
	struct symbol_info *info = &syms->infos[i];
	char *own = NULL;

	if (!sym) {
		info->mangled = "";
		if (asprintf(&own, "fn#%" PRIu32 "@0x%" PRIx64, f->id, f->addr) < 0)
			return -ENOMEM;
		info->name = syms->owned[i] = own;
		return 0;
	}
	info->mangled = sym->name;
	if (!opts->mangled)
		own = demangle(sym->name);
	if (sym->addr != f->addr) {
		char *n = name_with_offset(own ? own : sym->name, f->addr - sym->addr);

		free(own);
		if (!n)
			return -ENOMEM;
		own = n;
	}
	syms->owned[i] = own;
	info->name = own ? own : sym->name;
	return 0;
}

static void locate_function(struct symbols *syms, size_t i)
{
	const char *file = NULL;
	uint32_t line = 0;

	if (syms->located[i])
		return;
	syms->located[i] = true;
	if (syms->sl && !srcloc__lookup(syms->sl, syms->addrs[i], &file, &line)) {
		syms->infos[i].file = file;
		syms->infos[i].line = line;
	}
}

/* The suffix that tells apart two functions showing the same name: the
 * Rust legacy hash the demangler stripped, else the source location, else
 * the address. */
static char *distinct_name(const struct symbol_info *info, const struct xray_function *f,
			   bool by_address)
{
	const char *m = info->mangled;
	size_t len = strlen(m);
	const char *base;
	char *s = NULL;
	int n;

	if (by_address)
		n = asprintf(&s, "%s@0x%" PRIx64, info->name, f->addr);
	else if (len > 20 && !strncmp(m + len - 20, "17h", 3) && m[len - 1] == 'E' &&
		 strcmp(info->name, m))
		n = asprintf(&s, "%s::h%.16s", info->name, m + len - 17);
	else if (info->file && (base = strrchr(info->file, '/')))
		n = asprintf(&s, "%s (%s:%" PRIu32 ")", info->name, base + 1, info->line);
	else if (info->file)
		n = asprintf(&s, "%s (%s:%" PRIu32 ")", info->name, info->file, info->line);
	else
		n = asprintf(&s, "%s@0x%" PRIx64, info->name, f->addr);
	return n < 0 ? NULL : s;
}

static int cmp_by_name(const void *a, const void *b, void *arg)
{
	const struct symbol_info *infos = arg;

	return strcmp(infos[*(const size_t *)a].name, infos[*(const size_t *)b].name);
}

/* Traces and reports key functions by name, so two functions that show the
 * same name (generic instances under Rust legacy mangling, static functions
 * of one name in two files) would merge: give each its suffix.  Copies of a
 * static inline function from one header share even file:line; a second
 * round tells those apart by address. */
static int disambiguate(struct symbols *syms, const struct xray_map *map, bool by_address)
{
	size_t *order = malloc((syms->n ? syms->n : 1) * sizeof(*order));
	bool *dup = calloc(syms->n ? syms->n : 1, sizeof(*dup));
	int ret = 0;

	if (!order || !dup)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < syms->n; i++)
		order[i] = i;
	if (!ret)
		qsort_r(order, syms->n, sizeof(*order), cmp_by_name, syms->infos);
	for (size_t i = 1; !ret && i < syms->n; i++)
		if (!strcmp(syms->infos[order[i]].name, syms->infos[order[i - 1]].name))
			dup[order[i]] = dup[order[i - 1]] = true;
	for (size_t i = 0; !ret && i < syms->n; i++) {
		char *n;

		if (!dup[i])
			continue;
		locate_function(syms, i);
		n = distinct_name(&syms->infos[i], &map->funcs[i], by_address);
		if (!n) {
			ret = -ENOMEM;
			break;
		}
		free(syms->owned[i]);
		syms->owned[i] = n;
		syms->infos[i].name = n;
	}
	free(order);
	free(dup);
	return ret;
}

int symbols__load(struct elf_object *obj, const struct xray_map *map,
		  const struct symbols_opts *opts, struct symbols **out, char *err, size_t errlen)
{
	static const struct symbols_opts defaults;
	struct symbols *syms;
	int ret = 0;

	*out = NULL;
	if (!opts)
		opts = &defaults;
	syms = calloc(1, sizeof(*syms));
	if (syms) {
		syms->n = map->nfuncs;
		syms->infos = calloc(map->nfuncs ? map->nfuncs : 1, sizeof(*syms->infos));
		syms->owned = calloc(map->nfuncs ? map->nfuncs : 1, sizeof(*syms->owned));
		syms->located = calloc(map->nfuncs ? map->nfuncs : 1, sizeof(*syms->located));
		syms->addrs = calloc(map->nfuncs ? map->nfuncs : 1, sizeof(*syms->addrs));
	}
	if (!syms || !syms->infos || !syms->owned || !syms->located || !syms->addrs ||
	    (!opts->no_srcloc && !(syms->sl = srcloc__open(obj))))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < map->nfuncs; i++) {
		syms->addrs[i] = map->funcs[i].addr;
		ret = name_function(syms, i, obj, &map->funcs[i], opts);
	}
	if (!ret)
		ret = disambiguate(syms, map, false);
	if (!ret)
		ret = disambiguate(syms, map, true);
	if (ret) {
		symbols__free(syms);
		snprintf(err, errlen, "%s: naming functions: %s", elf_object__path(obj),
			 strerror(-ret));
		return ret;
	}
	*out = syms;
	return 0;
}

void symbols__free(struct symbols *syms)
{
	if (!syms)
		return;
	for (size_t i = 0; syms->owned && i < syms->n; i++)
		free(syms->owned[i]);
	free(syms->owned);
	free(syms->located);
	free(syms->addrs);
	free(syms->infos);
	if (syms->sl)
		srcloc__free(syms->sl);
	free(syms);
}

const struct symbol_info *symbols__get(const struct symbols *syms, uint32_t id)
{
	if (!syms || id == 0 || id > syms->n)
		return NULL;
	return &syms->infos[id - 1];
}

const struct symbol_info *symbols__locate(struct symbols *syms, uint32_t id)
{
	if (!syms || id == 0 || id > syms->n)
		return NULL;
	locate_function(syms, id - 1);
	return &syms->infos[id - 1];
}
