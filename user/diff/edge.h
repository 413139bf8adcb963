/* SPDX-License-Identifier: MIT */
/* edge.h: the counts of one caller -> callee path in `sledtrace diff`:
 * what a run's report edge gives, by edge metric (metric.h), and, once
 * diff.c has every run's spread, the changes, the status and the order the
 * formats list paths in. */
#ifndef SLEDTRACE_DIFF_EDGE_H
#define SLEDTRACE_DIFF_EDGE_H

#include "analysis/report.h"
#include "diff/row.h"

/* e's counts by edge metric: calls, then what they spent (0 without
 * costs). */
void diff_edge__counts(const struct report_edge *e, double out[DIFF_NEDGE_METRICS]);

/* With e->v filled: the changes, and the status (new or gone by its
 * calls; changed when any count changed, all of them exact). */
void diff_edge__finish(struct diff_edge *e);

/* qsort order of struct diff_edge pointers: fired, inconclusive, then the
 * largest change in calls, then by name. */
int diff_edge__cmp(const void *pa, const void *pb);

#endif
