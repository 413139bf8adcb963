/* SPDX-License-Identifier: MIT */
/* print_text.h: the numbers, labels, notes and evidence lines that every
 * output format of `sledtrace diff` shares.  A leaf below the formats:
 * it reads a finished diff and prints nothing on its own. */
#ifndef SLEDTRACE_DIFF_PRINT_TEXT_H
#define SLEDTRACE_DIFF_PRINT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "diff/diff.h"

extern const char *const diff_side_names[2];
extern const char *const diff_group_names[3];

/* A count, or a time with its unit. */
const char *diff_fmt_value(char *buf, size_t n, int metric, double v);
/* "+500 (+50.0%)", "new", "gone", "0". */
const char *diff_fmt_change(char *buf, size_t n, const struct diff_row *r, enum diff_metric m);
/* Of edge metric m of a path. */
const char *diff_fmt_edge_change(char *buf, size_t n, const struct diff_edge *e,
				 enum diff_edge_metric m);
/* "name", plus " (object)" when another object has that name too, plus
 * " [thread]" per thread or process. */
const char *diff_row__label(const struct diff_row *r, char *buf, size_t n);
/* The larger side's share of r's time that is probe cost when it is most
 * of it (DIFF_PROBE_MOSTLY), else 0: such a row's times compare probes. */
#define DIFF_PROBE_MOSTLY 0.5
double diff_row__probe_mostly(const struct diff_row *r);
/* "caller -> callee" */
const char *diff_edge__label(const struct diff_edge *e, char *buf, size_t n);
/* How many functions and paths show: --top, or all. */
size_t diff_text__shown(const struct diff *d, size_t top);
/* How many of the runs have scheduler switches (on-CPU time). */
size_t diff_text__nsched(const struct diff *d);
/* How many of the runs were recorded with --costs. */
size_t diff_text__ncosts(const struct diff *d);
/* Whether the outputs show metric m: the on-CPU ones only when a run has
 * switches, the costs only when a run has costs (metric.h).  JSON and
 * CSV carry the on-CPU ones always, the costs as the others show them. */
bool diff_text__shows(const struct diff *d, enum diff_metric m);
/* The metrics the table and the markdown show, in their column order.
 * Returns how many. */
int diff_text__columns(const struct diff *d, enum diff_metric cols[DIFF_NMETRICS]);
/* "noise floor 1.2ms (0.5% of a run)", with the on-CPU floor too when the
 * on-CPU columns show. */
const char *diff_text__floor(const struct diff *d, char *buf, size_t n);

/* How many functions a time rule's pass does not clear (row.h). */
size_t diff_text__uncleared(const struct diff *d);

/* Calls fn once per note: lost events, counts (calls, costs) that differ
 * within a side, runs with and without costs, the shared shift, objects
 * only one side has, what a pass does not clear. */
void diff__notes(const struct diff *d, void (*fn)(void *ctx, const char *note), void *ctx);

/* A rule's verdict on one function or path, for every format. */
struct diff_finding {
	size_t rule;
	bool fired;		      /* else inconclusive */
	const struct diff_row *row;   /* or */
	const struct diff_edge *edge; /* a call path (an edge metric) */
};
/* Calls fn for every finding: rule order, then row order; fired ones
 * first when both are asked for. */
void diff__findings(const struct diff *d, bool fired, bool unsure,
		    void (*fn)(void *ctx, const struct diff_finding *f), void *ctx);
/* "calls 1000 -> 1500, +500 (+50.0%)" (a path's: "allocs 4 -> 5, ...") or, for times, the shift-corrected
 * change with its interval and p-value. */
const char *diff_finding__evidence(const struct diff *d, const struct diff_finding *f, char *buf,
				   size_t n);
/* The function or path it is about. */
const char *diff_finding__label(const struct diff_finding *f, char *buf, size_t n);
/* One line per finding, each starting with prefix:
 * "RULE fired on LABEL: EVIDENCE" or "RULE inconclusive on LABEL: ...". */
void diff__print_findings(const struct diff *d, bool fired, bool unsure, const char *prefix,
			  FILE *f);

#endif
