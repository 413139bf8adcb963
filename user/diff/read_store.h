/* SPDX-License-Identifier: MIT */
/* read_store.h: what `sledtrace diff` keeps while it reads: entries keyed
 * by a few strings (a function: name, object, thread or process name; a
 * call path: caller, its object, callee, its object), each with one row
 * of numbers per run.  A key string may be NULL (no group), which differs
 * from "".  Runs are added one at a time; every entry gets a zeroed row
 * for each, so an entry a run never saw reads 0 there. */
#ifndef SLEDTRACE_DIFF_READ_STORE_H
#define SLEDTRACE_DIFF_READ_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/u64map.h"

#define DIFF_STORE_MAX_KEYS 4

struct diff_store {
	size_t nkeys, nvals; /* strings per key, numbers per run */
	struct store_entry **entries;
	size_t n;
	size_t nslots; /* runs */
	struct u64map by_hash;
};

void diff_store__init(struct diff_store *s, size_t nkeys, size_t nvals);
void diff_store__free(struct diff_store *s);
/* One more run; returns 0 or -ENOMEM. */
int diff_store__add_slot(struct diff_store *s);
/* The nvals numbers of run slot of the entry keyed keys[0..nkeys),
 * created when new; NULL when out of memory. */
double *diff_store__at(struct diff_store *s, const char *const *keys, size_t slot);
size_t diff_store__n(const struct diff_store *s);
const char *diff_store__key(const struct diff_store *s, size_t i, size_t k);
/* Entry i's numbers of run slot. */
const double *diff_store__vals(const struct diff_store *s, size_t i, size_t slot);
/* The same, to write. */
double *diff_store__row(struct diff_store *s, size_t i, size_t slot);

#endif
