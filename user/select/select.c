// SPDX-License-Identifier: MIT
/* select.c: see select.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "select/select.h"

int select_args__add(struct select_args *a, char kind, const char *arg)
{
	if (a->n == sizeof(a->items) / sizeof(a->items[0]))
		return -E2BIG;
	a->items[a->n].kind = kind;
	a->items[a->n].arg = arg;
	a->n++;
	return 0;
}

int select_args__filter(const struct select_args *a, const char *object, const char *build_id,
			struct filter **out, char *err, size_t errlen)
{
	struct filter *f = filter__new();
	int ret = 0;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < a->n && !ret; i++) {
		if (a->items[i].kind != 'f') {
			ret = filter__add(f, a->items[i].arg, a->items[i].kind == 'N', err, errlen);
			continue;
		}
		ret = filter__load_file(f, a->items[i].arg, object, build_id, err, errlen);
		if (ret == -ESTALE) {
			fprintf(stderr, "sledtrace: warning: %s\n", err);
			ret = 0;
		}
	}
	if (ret) {
		filter__free(f);
		return ret;
	}
	*out = f;
	return 0;
}

int select_functions(const struct filter *f, const struct symbols *syms, const struct xray_map *map,
		     bool **selected, size_t *count)
{
	bool *sel = calloc(map->nfuncs + 1, sizeof(*sel));

	if (!sel)
		return -ENOMEM;
	*count = 0;
	for (size_t i = 0; i < map->nfuncs; i++) {
		uint32_t id = map->funcs[i].id;
		const struct symbol_info *si = symbols__get(syms, id);

		sel[id] = !f || filter__match(f, si->name, si->mangled[0] ? si->mangled : NULL);
		*count += sel[id];
	}
	*selected = sel;
	return 0;
}
