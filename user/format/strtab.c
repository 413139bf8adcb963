// SPDX-License-Identifier: MIT
/* strtab.c: see strtab.h.  Open addressing over indexes, FNV-1a hashes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/strtab.h"

struct strtab {
	char **strs;
	size_t n, cap;
	uint32_t *slots; /* index + 1, 0 empty */
	size_t nslots;	 /* power of two */
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

struct strtab *strtab__new(void)
{
	return calloc(1, sizeof(struct strtab));
}

void strtab__free(struct strtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->strs[i]);
	free(t->strs);
	free(t->slots);
	free(t);
}

static int rehash(struct strtab *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 256;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash(t->strs[i]) & (ns - 1);

		while (s[j])
			j = (j + 1) & (ns - 1);
		s[j] = (uint32_t)i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

int64_t strtab__intern(struct strtab *t, const char *s)
{
	size_t j;

	if ((t->n + 1) * 2 > t->nslots && rehash(t))
		return -ENOMEM;
	for (j = hash(s) & (t->nslots - 1); t->slots[j]; j = (j + 1) & (t->nslots - 1))
		if (!strcmp(t->strs[t->slots[j] - 1], s))
			return t->slots[j] - 1;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **v = realloc(t->strs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->strs = v;
		t->cap = cap;
	}
	if (!(t->strs[t->n] = strdup(s)))
		return -ENOMEM;
	t->slots[j] = (uint32_t)++t->n;
	return (int64_t)t->n - 1;
}

size_t strtab__count(const struct strtab *t)
{
	return t->n;
}

const char *strtab__get(const struct strtab *t, size_t i)
{
	return i < t->n ? t->strs[i] : NULL;
}
