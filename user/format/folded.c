// SPDX-License-Identifier: MIT
/* folded.c: see folded.h.  A ';' inside a name would split a frame in two,
 * so it is written as ':'. */
#include <errno.h>
#include <stdlib.h>

#include "format/folded.h"

static void put_name(const char *s, FILE *f)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' ? ' ' : *s), f);
}

static void put_path(const struct calltree *ct, uint32_t i, uint32_t *path, FILE *f)
{
	size_t n = 0;

	for (; i; i = calltree__node(ct, i)->parent)
		path[n++] = i;
	while (n--) {
		put_name(calltree__name(ct, calltree__node(ct, path[n])->fid), f);
		if (n)
			fputc(';', f);
	}
}

int folded__write(const struct calltree *ct, enum folded_weight w, FILE *f)
{
	size_t n = calltree__count(ct);
	uint32_t *path = malloc(n * sizeof(*path));

	if (!path)
		return -ENOMEM;
	for (size_t i = 1; i < n; i++) {
		const struct calltree_node *node = calltree__node(ct, i);
		uint64_t v = w == FOLDED_CALLS ? node->calls : node->self_ns;

		if (!v)
			continue;
		put_path(ct, (uint32_t)i, path, f);
		fprintf(f, " %llu\n", (unsigned long long)v);
	}
	free(path);
	return ferror(f) ? -EIO : 0;
}
