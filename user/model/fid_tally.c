// SPDX-License-Identifier: MIT
/* fid_tally.c: see fid_tally.h. */
#include <stdlib.h>
#include <string.h>

#include "model/fid_tally.h"

static bool room(struct fid_tally *t, uint32_t fid)
{
	size_t n = t->n ? t->n : 256;
	uint64_t *c, *k;

	while (n <= fid)
		n *= 2;
	if (n == t->n)
		return true;
	c = realloc(t->calls, n * sizeof(*c));
	if (c)
		t->calls = c;
	k = c ? realloc(t->children, n * sizeof(*k)) : NULL;
	if (!k)
		return false; /* the tally is a hint: it stops growing */
	t->children = k;
	memset(c + t->n, 0, (n - t->n) * sizeof(*c));
	memset(k + t->n, 0, (n - t->n) * sizeof(*k));
	t->n = n;
	return true;
}

void fid_tally__leave(struct fid_tally *t, uint32_t fid, uint32_t up, bool has_up)
{
	uint32_t most = has_up && up > fid ? up : fid;

	if (most >= t->n && !room(t, most))
		return;
	t->calls[fid]++;
	if (has_up)
		t->children[up]++;
}

void fid_tally__free(struct fid_tally *t)
{
	free(t->calls);
	free(t->children);
	*t = (struct fid_tally){ 0 };
}
