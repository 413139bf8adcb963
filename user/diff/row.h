/* SPDX-License-Identifier: MIT */
/* row.h: what `sledtrace diff` says about one function (or one
 * caller -> callee path) and about the comparison as a whole.  Types only:
 * diff.c fills them from the traces, judge_verdict.c adds the statistics
 * and the rules' verdicts, the formats print them. */
#ifndef SLEDTRACE_DIFF_ROW_H
#define SLEDTRACE_DIFF_ROW_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/report.h"
#include "diff/estimate_stats.h"
#include "diff/metric.h"

enum diff_side { DIFF_BASE, DIFF_HEAD };
enum diff_status { DIFF_SAME, DIFF_CHANGED, DIFF_NEW, DIFF_GONE };
enum diff_verdict { DIFF_PASS, DIFF_FAIL, DIFF_INCONCLUSIVE };
enum diff_sort {
	DIFF_SORT_IMPACT,
	DIFF_SORT_CALLS,
	DIFF_SORT_TOTAL,
	DIFF_SORT_SELF,
	DIFF_SORT_AVG,
	DIFF_SORT_NAME,
	DIFF_SORT_CPU,
	DIFF_SORT_CPU_SELF
};
enum diff_group { DIFF_BY_FUNCTION, DIFF_BY_THREAD, DIFF_BY_PROCESS };

#define DIFF_MAX_RULES 64

extern const char *const diff_status_names[4];
extern const char *const diff_verdict_names[3];

/* The change of a time metric once the shift all functions share is
 * taken out (judge_verdict.c): geometric means over the runs, Welch's test
 * on the logarithms, Benjamini-Hochberg over the functions tested. */
struct diff_estimate {
	bool tested;	      /* >= 2 runs a side, a value in each, above the floor */
	double ratio;	      /* head / base; NAN when not estimated */
	double lo, hi;	      /* its confidence interval, not corrected for multiplicity */
	double t, df;	      /* the test statistic (log ratio / its error) and its d.f. */
	double p;	      /* two-sided, against no change */
	double sd;	      /* pooled spread of one run, in log units (0.1: ~10%) */
	double shift_var;     /* the variance the shared shift's estimate adds */
	double change_ns;     /* (ratio - 1) x the base's geometric mean */
	double size_ns;	      /* |ratio - 1| x the function's time (diff_metric size_of) */
	double base_ns;	      /* the base's geometric mean */
	double base_size_ns;  /* the same of the function's time (size_of) */
	bool significant;     /* after Benjamini-Hochberg over the functions tested */
	unsigned runs_needed; /* runs per side that would make it significant; 0: > 99 */
};

struct diff_row {
	const char *name;
	const char *object; /* file name of its object, "" when the trace has none */
	const char *group;  /* thread or process name, NULL by function */
	enum diff_status status;
	struct diff_spread v[2][DIFF_NMETRICS];
	double change[DIFF_NMETRICS];	  /* head median - base median */
	double change_pct[DIFF_NMETRICS]; /* 100 * change / base; +-INFINITY from 0 */
	/* Each run's value (NAN: the run has none, avg without calls). */
	const double *runs[2][DIFF_NMETRICS];
	struct diff_estimate est[DIFF_NMETRICS]; /* time metrics */
	bool calls_agree[2];			 /* every run of the side had one count */
	bool shared_name;			 /* another object has a function of this name */
	/* Calls from runs with every probe, and no time in the timed runs:
	 * a budget left it unprobed there (its time is in its callers'). */
	bool unprobed;
	/* Per side, the median over runs of the share of the raw total that
	 * is probe cost (report's label); NAN without calls. */
	double probe_share[2];
	/* Left out by --function: it only helps measure the shared shift,
	 * which is the whole program's, and is neither tested nor shown. */
	bool hidden;
	uint64_t fired;	 /* bit i: rule i fired on this row */
	uint64_t unsure; /* bit i: rule i is inconclusive on this row */
	/* bit i: time rule i neither fired nor hesitated, but the interval of
	 * the change reaches past its threshold: a pass does not clear it */
	uint64_t uncleared;
};

/* The counts of one caller -> callee path (report's edges), by edge
 * metric: calls, and what they spent with costs; a caller "[root]" is a
 * thread's first function. */
struct diff_edge {
	const char *caller, *caller_object, *callee, *callee_object;
	enum diff_status status; /* changed: any of its counts */
	struct diff_spread v[2][DIFF_NEDGE_METRICS];
	double change[DIFF_NEDGE_METRICS], change_pct[DIFF_NEDGE_METRICS];
	uint64_t fired, unsure;
};

/* The shift all functions share, measured on one metric (estimate_shift.h). */
struct diff_shift_summary {
	bool measured; /* enough functions in every run to measure it */
	size_t functions;
	double ratio; /* head / base, 1 = none */
	double var;   /* the variance of its logarithm's estimate */
};

/* The functions a time rule's pass does not clear (diff_row.uncleared). */
struct diff_uncleared {
	size_t functions;
	double base_ns;		    /* their base time together */
	const struct diff_row *top; /* the one with the most base time */
	unsigned runs_to_see;	    /* per side, to see the threshold in top; 0: > 99 */
};

/* The comparison as a whole (judge_verdict.c). */
struct diff_summary {
	enum diff_verdict verdict;
	/* By the metric it is measured on, every time metric's shift_from:
	 * self (the machine's speed), cpu-self (its speed on the CPU). */
	struct diff_shift_summary shift[DIFF_NMETRICS];
	size_t tested[DIFF_NMETRICS];	   /* functions in each time metric's test */
	size_t significant[DIFF_NMETRICS]; /* of them, with a significant change */
	/* By source: the base runs' median of its sum over the functions; the
	 * noise floor of a time metric is a share of its basis's. */
	double run_total_ns[DIFF_NSOURCES];
	unsigned runs_needed; /* per side, for the inconclusive rows; 0: unknown */
	struct diff_uncleared uncleared[DIFF_MAX_RULES]; /* by rule */
	char **reasons;					 /* why inconclusive, one line each */
	size_t nreasons;
};

struct diff_rule;

struct diff_opts {
	enum diff_group group;
	enum diff_sort sort;
	const regex_t *function; /* only functions whose name matches; NULL: all */
	uint64_t min_time_ns;	 /* time changes smaller than this never fire */
	enum report_times times; /* compensated: each run less its own probe cost */
	double confidence;	 /* 0.95: 1 - the false discovery rate of the tests */
	double noise_floor;	 /* 0.005: a time change under this share of the run cannot fire */
	struct diff_rule *const *rules;
	size_t nrules; /* <= DIFF_MAX_RULES */
	/* Calls and call paths come from other runs than the times
	 * (diff__read_calls): the time runs' own paths are not kept. */
	bool calls_elsewhere;
	/* bench --max-runs: the runs a side its first look judged (0: bench
	 * looks once); confidence is then each look's, half the error rate
	 * asked for */
	uint32_t first_look_runs;
};

#endif
