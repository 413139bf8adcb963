/* SPDX-License-Identifier: MIT */
/* pprof.h: a trace's call tree as a gzip-compressed pprof profile
 * (perftools.profiles.Profile), for `go tool pprof` and the tools that
 * read its format.  The tree must be built per thread
 * (calltree__new_by_thread): one sample per (thread, call path), labelled
 * with the thread; values calls/count and wall/nanoseconds (self time),
 * then, for a trace recorded with --costs, its self counts of each cost
 * kind (docs/exports.md names the sample types). */
#ifndef SLEDTRACE_PPROF_H
#define SLEDTRACE_PPROF_H

#include <stdio.h>

#include "model/calltree.h"

/* Returns 0 or a negative errno (-EIO when writing failed). */
int pprof__write(const struct calltree *ct, FILE *f);

#endif
