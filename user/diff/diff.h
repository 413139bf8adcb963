/* SPDX-License-Identifier: MIT */
/* diff.h: compares the per-function aggregation (report.c) of one or more
 * traces of a base build with that of a candidate ("head") build.
 * Functions are matched by display (demangled) name and the file name of
 * their object (not its directory), and per-thread or per-process when
 * asked by thread or process name: never by address, XRay id or tid,
 * which change between builds and runs.  Caller -> callee paths are
 * matched the same way at both ends.  Each trace is streamed through the
 * one reader into a report and reduced to one row per function at once,
 * so memory is per function, not per event.  With several runs per side
 * every number is a median with its spread, and time changes are judged
 * by judge_verdict.c against the runs' noise. */
#ifndef SLEDTRACE_DIFF_DIFF_H
#define SLEDTRACE_DIFF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff/row.h"
#include "model/trace_stats.h"

struct diff;

int diff__new(const struct diff_opts *o, struct diff **out);

/* What diff__read (read_traces.h) feeds in from traces, open to other
 * sources (tests): a run, then its functions, objects and call paths.
 * Each returns 0 or -ENOMEM. */
int diff__add_run(struct diff *d, enum diff_side side, const char *path,
		  const struct trace_stats *st);
/* To the last run added.  Functions --function leaves out still count in
 * the run's total self time, against which the noise floor is held. */
int diff__add_function(struct diff *d, const char *name, const char *object, const char *group,
		       const struct report_row *row);
int diff__add_object(struct diff *d, const char *object);
/* A path's counts: its calls, and what they spent (report_edge). */
int diff__add_edge(struct diff *d, const char *const ends[4], const struct report_edge *e);
/* Before a side's diff__set_calls/diff__set_edge: its runs' counts and
 * paths are zeroed, to be the full run's sum. */
void diff__clear_counts(struct diff *d, enum diff_side side);
/* Calls and costs (the counts of row) from a run with every function
 * probed, added to every run of side (recorded with a budget, whose calls
 * are those of the functions it probed, whose costs of the rest are their
 * callers', and whose paths skip the rest): opts.calls_elsewhere. */
int diff__set_calls(struct diff *d, enum diff_side side, const char *name, const char *object,
		    const char *group, const struct report_row *row);
int diff__set_edge(struct diff *d, enum diff_side side, const char *const ends[4],
		   const struct report_edge *e);

/* After the last run: medians, changes, statistics, rules, sort order.
 * Returns 0; -EINVAL with one line in err when the runs cannot be
 * compared (different programs, nothing in common); -ENOMEM. */
int diff__finish(struct diff *d, char *err, size_t errlen);
void diff__free(struct diff *d);

const struct diff_opts *diff__opts(const struct diff *d);
const struct diff_summary *diff__summary(const struct diff *d);
size_t diff__nrows(const struct diff *d);
const struct diff_row *diff__row(const struct diff *d, size_t i); /* sorted */
size_t diff__nedges(const struct diff *d);
const struct diff_edge *diff__edge(const struct diff *d, size_t i); /* sorted */
size_t diff__nruns(const struct diff *d, enum diff_side side);
const char *diff__path(const struct diff *d, enum diff_side side, size_t run);
/* The statistics of one run. */
const struct trace_stats *diff__stats(const struct diff *d, enum diff_side side, size_t run);
/* The object file names that one side's runs have and the other's lack. */
size_t diff__nobjects_only(const struct diff *d, enum diff_side side);
const char *diff__object_only(const struct diff *d, enum diff_side side, size_t i);
/* A row worth a reader's attention: a rule fired or is inconclusive on
 * it, its calls changed, it is new or gone, or a time changed
 * significantly. */
bool diff_row__matters(const struct diff_row *row);
/* Bits of the rules that fired, or were inconclusive, anywhere. */
uint64_t diff__fired(const struct diff *d);
uint64_t diff__unsure(const struct diff *d);

#endif
