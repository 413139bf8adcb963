// SPDX-License-Identifier: MIT
/* read_store.c: see read_store.h.  Entries are found by a hash of their
 * key strings in a u64map, with a chain through entries of equal hash.
 * Each run widens every entry by one row (a realloc per entry): runs are
 * few, entries are not known before the traces are read, and one
 * allocation per entry keeps lookups cheap. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "diff/read_store.h"

struct store_entry {
	char *keys[DIFF_STORE_MAX_KEYS];
	size_t next; /* 1 + index of the next entry with the same hash, 0: none */
	double vals[];
};

static uint64_t hash_str(uint64_t h, const char *s)
{
	if (!s)
		return (h ^ 0x1ff) * 0x100000001b3ULL; /* NULL differs from "" */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL; /* end marker: "ab","c" != "a","bc" */
}

static bool same_str(const char *a, const char *b)
{
	return !a || !b ? a == b : !strcmp(a, b);
}

static bool same_key(const struct diff_store *s, const struct store_entry *e,
		     const char *const *keys)
{
	for (size_t k = 0; k < s->nkeys; k++)
		if (!same_str(e->keys[k], keys[k]))
			return false;
	return true;
}

static size_t entry_size(const struct diff_store *s, size_t nslots)
{
	return sizeof(struct store_entry) + nslots * s->nvals * sizeof(double);
}

static void entry_free(struct store_entry *e)
{
	if (!e)
		return;
	for (size_t k = 0; k < DIFF_STORE_MAX_KEYS; k++)
		free(e->keys[k]);
	free(e);
}

static struct store_entry *new_entry(struct diff_store *s, const char *const *keys)
{
	struct store_entry **v = realloc(s->entries, (s->n + 1) * sizeof(*v));
	struct store_entry *e;

	if (!v)
		return NULL;
	s->entries = v;
	if (!(e = calloc(1, entry_size(s, s->nslots))))
		return NULL;
	for (size_t k = 0; k < s->nkeys; k++) {
		if (keys[k] && !(e->keys[k] = strdup(keys[k]))) {
			entry_free(e);
			return NULL;
		}
	}
	v[s->n++] = e;
	return e;
}

void diff_store__init(struct diff_store *s, size_t nkeys, size_t nvals)
{
	*s = (struct diff_store){ .nkeys = nkeys < DIFF_STORE_MAX_KEYS ? nkeys
								       : DIFF_STORE_MAX_KEYS,
				  .nvals = nvals };
}

void diff_store__free(struct diff_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		entry_free(s->entries[i]);
	free(s->entries);
	u64map__clear(&s->by_hash);
	*s = (struct diff_store){ 0 };
}

int diff_store__add_slot(struct diff_store *s)
{
	size_t size = entry_size(s, s->nslots + 1);

	for (size_t i = 0; i < s->n; i++) {
		struct store_entry *e = realloc(s->entries[i], size);

		if (!e)
			return -ENOMEM;
		memset(e->vals + s->nslots * s->nvals, 0, s->nvals * sizeof(double));
		s->entries[i] = e;
	}
	s->nslots++;
	return 0;
}

double *diff_store__at(struct diff_store *s, const char *const *keys, size_t slot)
{
	uint64_t h = 0xcbf29ce484222325ULL, first;
	struct store_entry *e;

	for (size_t k = 0; k < s->nkeys; k++)
		h = hash_str(h, keys[k]);
	h += !h; /* 0 is not a u64map key */
	if (u64map__get(&s->by_hash, h, &first)) {
		for (size_t i = first; i; i = s->entries[i - 1]->next)
			if (same_key(s, s->entries[i - 1], keys))
				return s->entries[i - 1]->vals + slot * s->nvals;
	}
	if (!(e = new_entry(s, keys)))
		return NULL;
	e->next = u64map__get(&s->by_hash, h, &first) ? first : 0;
	if (u64map__put(&s->by_hash, h, s->n))
		return NULL;
	return e->vals + slot * s->nvals;
}

size_t diff_store__n(const struct diff_store *s)
{
	return s->n;
}

const char *diff_store__key(const struct diff_store *s, size_t i, size_t k)
{
	return s->entries[i]->keys[k];
}

const double *diff_store__vals(const struct diff_store *s, size_t i, size_t slot)
{
	return s->entries[i]->vals + slot * s->nvals;
}

double *diff_store__row(struct diff_store *s, size_t i, size_t slot)
{
	return s->entries[i]->vals + slot * s->nvals;
}
