// SPDX-License-Identifier: MIT
/* budget.c: see budget.h.  A sorted array of "file\0name" keys searched
 * with bsearch: the set is built once, then asked once per function of
 * every object opened, and a few thousand names need nothing cleverer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "select/budget.h"

struct budget_key {
	char *object; /* file name only; "" matches every object */
	char *name;
};

struct budget {
	struct budget_key *keys;
	size_t n, cap;
	bool sealed;
};

static const char *file_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "";
}

int budget__new(struct budget **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void budget__free(struct budget *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		free(b->keys[i].object);
		free(b->keys[i].name);
	}
	free(b->keys);
	free(b);
}

int budget__leave_out(struct budget *b, const char *object, const char *name)
{
	struct budget_key *k;

	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 64;

		k = realloc(b->keys, cap * sizeof(*k));
		if (!k)
			return -ENOMEM;
		b->keys = k;
		b->cap = cap;
	}
	k = &b->keys[b->n];
	k->object = strdup(file_name(object));
	k->name = strdup(name);
	if (!k->object || !k->name) {
		free(k->object);
		free(k->name);
		return -ENOMEM;
	}
	b->n++;
	b->sealed = false;
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	const struct budget_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->object, y->object);
}

void budget__seal(struct budget *b)
{
	size_t w = 0;

	qsort(b->keys, b->n, sizeof(*b->keys), cmp_key);
	for (size_t i = 0; i < b->n; i++) {
		if (w && !cmp_key(&b->keys[w - 1], &b->keys[i])) {
			free(b->keys[i].object);
			free(b->keys[i].name);
			continue;
		}
		b->keys[w++] = b->keys[i];
	}
	b->n = w;
	b->sealed = true;
}

bool budget__leaves_out(const struct budget *b, const char *object, const char *name)
{
	struct budget_key k = { .object = (char *)file_name(object), .name = (char *)name };
	struct budget_key any = { .object = "", .name = (char *)name };

	if (!b || !b->sealed || !b->n)
		return false;
	return bsearch(&k, b->keys, b->n, sizeof(k), cmp_key) ||
	       bsearch(&any, b->keys, b->n, sizeof(any), cmp_key);
}

size_t budget__count(const struct budget *b)
{
	return b ? b->n : 0;
}
