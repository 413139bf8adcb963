/* SPDX-License-Identifier: MIT */
/* diff_read.h: reads the traces of `sledtrace diff`, each through the one
 * reader into its own report (report.c), several at once on several CPUs,
 * and remembers each function's object file and each thread's name, by
 * which rows are matched across builds and runs (addresses and tids
 * differ). */
#ifndef SLEDTRACE_DIFF_READ_H
#define SLEDTRACE_DIFF_READ_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"
#include "analysis/report.h"

struct diff_trace;

/* How many traces to read at once: the online CPUs, at most 8. */
size_t diff_trace__parallelism(void);
/* Reads paths[0..n) concurrently into out[0..n), grouped and with the
 * times o asks for.  Returns 0, or the error of the first failing path
 * (in path order) with one line in err; out[] is filled either way and
 * must be freed. */
int diff_trace__read_batch(const char *const *paths, size_t n, const struct diff_opts *o,
			   struct diff_trace **out, char *err, size_t errlen);
const struct report *diff_trace__report(const struct diff_trace *t);
/* The thread (or process) name of a report row's thread (1 + index), "?"
 * when the trace did not say. */
const char *diff_trace__group(const struct diff_trace *t, uint32_t thread);
/* The file name (no directory) of the object holding function fid, ""
 * when the trace does not say: builds differ in paths, not in names. */
const char *diff_trace__object(const struct diff_trace *t, uint32_t fid);
void diff_trace__free(struct diff_trace *t);

#endif
