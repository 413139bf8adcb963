/* SPDX-License-Identifier: MIT */
/* select.h: choosing functions by name, shared by list, filter and record:
 * the -F/-N/--filter-file options become one filter, and the filter picks
 * functions of one object by their display and mangled names. */
#ifndef SLEDTRACE_SELECT_H
#define SLEDTRACE_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "select/filter.h"
#include "object/symbols.h"
#include "object/xray_map.h"

/* The filter options as given, in order; resolved once the object is open
 * (a filter file is checked against the object's build-id). */
struct select_args {
	struct {
		char kind; /* 'F' include, 'N' exclude, 'f' filter file */
		const char *arg;
	} items[64];
	size_t n;
	bool allow_empty;
};

/* Records one -F/-N/--filter-file option; -E2BIG past 64. */
int select_args__add(struct select_args *a, char kind, const char *arg);
/* Builds the filter for object (its path, and build_id).  A filter file
 * written for another build of it is a warning
 * on stderr, not an error (its patterns are names, not addresses). */
int select_args__filter(const struct select_args *a, const char *object, const char *build_id,
			struct filter **out, char *err, size_t errlen);

/* selected[id] for XRay ids 1..nfuncs (index 0 unused); *count selected.
 * f may be NULL: everything. */
int select_functions(const struct filter *f, const struct symbols *syms, const struct xray_map *map,
		     bool **selected, size_t *count);

#endif
