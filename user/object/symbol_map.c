// SPDX-License-Identifier: MIT
/* symbol_map.c: see symbol_map.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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

int symbol_map__build(struct elf_object *obj, struct xray_map **out, char *err, size_t errlen)
{
	size_t nsyms = elf_object__symbol_count(obj), n;
	uint64_t *addrs = malloc((nsyms + 1) * sizeof(*addrs));
	struct xray_map *m = calloc(1, sizeof(*m));

	if (!addrs || !m)
		goto nomem;
	n = function_starts(obj, addrs);
	if (!n) {
		snprintf(err, errlen, "%s has no function symbols to probe (is it stripped?)",
			 elf_object__path(obj));
		free(addrs);
		free(m);
		return -ENODATA;
	}
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
