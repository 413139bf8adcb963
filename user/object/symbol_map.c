// SPDX-License-Identifier: MIT
/* symbol_map.c: see symbol_map.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "object/debuginfo.h"
#include "object/symbol_map.h"

static int cmp_addr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Distinct start addresses of sized functions in executable segments
 * (aliases share one). */
static size_t function_starts(const struct elf_object *obj, uint64_t *addrs)
{
	size_t n = 0, nsyms = elf_object__symbol_count(obj), u = 0;

	for (size_t i = 0; i < nsyms; i++) {
		const struct elf_symbol *s = elf_object__symbol(obj, i);
		uint64_t off;

		if (s->defined_func && s->size && s->addr &&
		    !elf_object__vaddr_to_offset(obj, s->addr, &off))
			addrs[n++] = s->addr;
	}
	qsort(addrs, n, sizeof(*addrs), cmp_addr);
	for (size_t i = 0; i < n; i++)
		if (!u || addrs[u - 1] != addrs[i])
			addrs[u++] = addrs[i];
	return u;
}

/* A stripped object gets its debug file's symbols; without them only its
 * exported functions are left, which is worth a warning, or none at all,
 * which is an error that says where the symbols would come from. */
static int add_debug_symbols(struct elf_object *obj, const char *debug_root, char *why,
			     size_t whylen)
{
	char found[4096];
	int ret = debuginfo__load(obj, debug_root ? debug_root : DEBUGINFO_ROOT, found,
				  sizeof(found), why, whylen);

	return ret == -ENOENT ? 1 : ret;
}

int symbol_map__build(struct elf_object *obj, const char *debug_root, struct xray_map **out,
		      char *err, size_t errlen)
{
	size_t nsyms, n;
	uint64_t *addrs;
	struct xray_map *m;
	int missing = add_debug_symbols(obj, debug_root, err, errlen);

	if (missing < 0)
		return missing;
	nsyms = elf_object__symbol_count(obj);
	addrs = malloc((nsyms + 1) * sizeof(*addrs));
	m = calloc(1, sizeof(*m));
	if (!addrs || !m)
		goto nomem;
	n = function_starts(obj, addrs);
	if (!n) {
		if (!missing)
			snprintf(err, errlen, "%s has no function symbols to probe",
				 elf_object__path(obj));
		free(addrs);
		free(m);
		return -ENODATA;
	}
	if (missing)
		fprintf(stderr,
			"sledtrace: warning: %s; only its %zu exported functions can be probed\n",
			err, n);
	m->funcs = calloc(n, sizeof(*m->funcs));
	m->sleds = calloc(n, sizeof(*m->sleds));
	if (!m->funcs || !m->sleds)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		m->funcs[i] = (struct xray_function){ .id = (uint32_t)(i + 1),
						      .addr = addrs[i],
						      .first_sled = (uint32_t)i,
						      .nsleds = 1,
						      .nentry = 1 };
		m->sleds[i].addr = addrs[i];
		m->sleds[i].kind = XRAY_SLED_ENTRY;
		elf_object__vaddr_to_offset(obj, addrs[i], &m->sleds[i].file_offset);
	}
	m->nfuncs = m->nsleds = n;
	free(addrs);
	*out = m;
	return 0;
nomem:
	free(addrs);
	xray_map__free(m);
	snprintf(err, errlen, "out of memory");
	return -ENOMEM;
}
