/* SPDX-License-Identifier: MIT */
/* diff.h: compares the per-function aggregation (report.c) of one or more
 * traces of a base build with that of a candidate ("head") build.
 * Functions are matched by display (demangled) name and the file name of
 * their object (not its directory), and per-thread or per-process when
 * asked by thread or process name: never by address, XRay id or tid,
 * which change between builds and runs.  Each trace is streamed through
 * the one reader into a report and reduced to one row per function at
 * once, so memory is per function, not per event.  With several runs per
 * side every number is a median, with its spread (min, max, MAD). */
#ifndef SLEDTRACE_DIFF_H
#define SLEDTRACE_DIFF_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/report.h"
#include "model/frames.h"

enum diff_metric { DIFF_CALLS, DIFF_TOTAL, DIFF_SELF, DIFF_AVG, DIFF_NMETRICS };
enum diff_side { DIFF_BASE, DIFF_HEAD };
enum diff_status { DIFF_SAME, DIFF_CHANGED, DIFF_NEW, DIFF_GONE };
enum diff_sort {
	DIFF_SORT_IMPACT,
	DIFF_SORT_CALLS,
	DIFF_SORT_TOTAL,
	DIFF_SORT_SELF,
	DIFF_SORT_AVG,
	DIFF_SORT_NAME
};
enum diff_group { DIFF_BY_FUNCTION, DIFF_BY_THREAD, DIFF_BY_PROCESS };

#define DIFF_MAX_RULES 64

extern const char *const diff_metric_names[DIFF_NMETRICS];
extern const char *const diff_status_names[4];

/* A metric over the runs of one side.  Times in ns; avg = total / calls
 * of each run.  A run without the function counts as 0 (avg: skipped). */
struct diff_spread {
	double median, min, max, mad;
};

struct diff_row {
	const char *name;
	const char *object; /* file name of its object, "" when the trace has none */
	const char *group;  /* thread or process name, NULL by function */
	enum diff_status status;
	struct diff_spread v[2][DIFF_NMETRICS];
	double change[DIFF_NMETRICS];	  /* head median - base median */
	double change_pct[DIFF_NMETRICS]; /* 100 * change / base; +-INFINITY from 0 */
	bool calls_agree[2];		  /* every run of the side had one count */
	bool shared_name;		  /* another object has a function of this name */
	uint64_t fired;			  /* bit i: rule i fired on this row */
};

struct diff_rule;

struct diff_opts {
	enum diff_group group;
	enum diff_sort sort;
	const regex_t *function; /* only functions whose name matches; NULL: all */
	uint64_t min_time_ns;	 /* time changes smaller than this never fire */
	enum report_times times; /* compensated: each run less its own probe cost */
	struct diff_rule *const *rules;
	size_t nrules; /* <= DIFF_MAX_RULES */
};

struct diff;

int diff__new(const struct diff_opts *o, struct diff **out);
/* Streams the traces of both sides (paths[DIFF_BASE], paths[DIFF_HEAD])
 * into the comparison, several at once.  Returns 0, or a negative errno
 * with one line (no newline) in err. */
int diff__read(struct diff *d, char **const paths[2], const size_t npaths[2], char *err,
	       size_t errlen);
/* After every diff__read: medians, changes, rules, sort order. */
int diff__finish(struct diff *d);
void diff__free(struct diff *d);

const struct diff_opts *diff__opts(const struct diff *d);
size_t diff__nrows(const struct diff *d);
const struct diff_row *diff__row(const struct diff *d, size_t i); /* sorted */
size_t diff__nruns(const struct diff *d, enum diff_side side);
const char *diff__path(const struct diff *d, enum diff_side side, size_t run);
/* The statistics of one run. */
const struct trace_stats *diff__stats(const struct diff *d, enum diff_side side, size_t run);
/* Whether the change of m is one a rule may fire on.  Calls: any change
 * (counts are exact).  Times: at least min_time_ns, and beyond the noise
 * of each side: 3 MADs (median absolute deviation) of its runs, about two
 * standard deviations of normal noise but not moved by one outlier; one
 * run has no noise estimate. */
bool diff_row__significant(const struct diff_row *row, enum diff_metric m, uint64_t min_time_ns);
/* A row worth a reader's attention: a rule fired, the calls changed, the
 * function is new or gone, or a time moved by 10% beyond the noise. */
bool diff_row__matters(const struct diff_row *row);
/* Bits of the rules that fired anywhere. */
uint64_t diff__fired(const struct diff *d);

#endif
