/* SPDX-License-Identifier: MIT */
/* strtab.h: interns strings to dense indexes in first-seen order (pprof's
 * string_table, Parquet dictionaries).  Index 0 is the first string
 * interned. */
#ifndef SLEDTRACE_STRTAB_H
#define SLEDTRACE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct strtab;

struct strtab *strtab__new(void);
void strtab__free(struct strtab *t);
/* Returns the index (>= 0) or -ENOMEM. */
int64_t strtab__intern(struct strtab *t, const char *s);
size_t strtab__count(const struct strtab *t);
const char *strtab__get(const struct strtab *t, size_t i);

#endif
