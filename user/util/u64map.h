/* SPDX-License-Identifier: MIT */
/* u64map.h: a small open-addressing map from non-zero 64-bit keys to 64-bit
 * values, shared by the Perfetto writer, reader and the report.  It lives
 * in a header (static inline) so those modules need no extra build entry.
 * Key 0 marks an empty slot: callers offset keys that can be zero.  There
 * is no delete: every user only ever adds (threads, functions, iids). */
#ifndef SLEDTRACE_U64MAP_H
#define SLEDTRACE_U64MAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	size_t cap; /* power of two, or 0 before the first put */
	size_t n;
};

static inline size_t u64map__slot(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static inline uint64_t *u64map__find(const struct u64map *m, uint64_t key)
{
	if (!m->cap || !key) /* 0 marks empty slots: it is never a key */
		return NULL;
	for (size_t i = u64map__slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return &m->vals[i];
		if (!m->keys[i])
			return NULL;
	}
}

static inline bool u64map__get(const struct u64map *m, uint64_t key, uint64_t *val)
{
	uint64_t *v = u64map__find(m, key);

	if (v)
		*val = *v;
	return v != NULL;
}

static inline void u64map__insert(uint64_t *keys, uint64_t *vals, size_t cap, uint64_t key,
				  uint64_t val)
{
	size_t i = u64map__slot(key, cap);

	while (keys[i] && keys[i] != key)
		i = (i + 1) & (cap - 1);
	keys[i] = key;
	vals[i] = val;
}

static inline int u64map__grow(struct u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 16;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	uint64_t *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			u64map__insert(keys, vals, cap, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* Adds or replaces.  Key must be non-zero. */
static inline int u64map__put(struct u64map *m, uint64_t key, uint64_t val)
{
	uint64_t *v = u64map__find(m, key);
	int err;

	if (!key)
		return -EINVAL;
	if (v) {
		*v = val;
		return 0;
	}
	if ((m->n + 1) * 4 > m->cap * 3 && (err = u64map__grow(m)))
		return err;
	u64map__insert(m->keys, m->vals, m->cap, key, val);
	m->n++;
	return 0;
}

static inline void u64map__clear(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct u64map){ 0 };
}

#endif
