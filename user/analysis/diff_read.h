/* SPDX-License-Identifier: MIT */
/* diff_read.h: reads the traces of `sledtrace diff`, each through the one
 * reader into its own report (report.c), several at once on several CPUs,
 * and remembers each thread's name so that per-thread rows can be matched
 * across runs, where tids differ. */
#ifndef SLEDTRACE_DIFF_READ_H
#define SLEDTRACE_DIFF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "analysis/report.h"

struct diff_trace;

/* How many traces to read at once: the online CPUs, at most 8. */
size_t diff_trace__parallelism(void);
/* Reads paths[0..n) concurrently into out[0..n).  Returns 0, or the error
 * of the first failing path (in path order) with one line in err; out[]
 * is filled either way and must be freed. */
int diff_trace__read_batch(const char *const *paths, size_t n, enum diff_group group,
			   struct diff_trace **out, char *err, size_t errlen);
const struct report *diff_trace__report(const struct diff_trace *t);
/* The thread (or process) name of a report row's thread (1 + index). */
const char *diff_trace__group(const struct diff_trace *t, uint32_t thread);
void diff_trace__free(struct diff_trace *t);

#endif
