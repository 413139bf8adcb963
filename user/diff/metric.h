/* SPDX-License-Identifier: MIT */
/* metric.h: the metrics `sledtrace diff` compares, as one table of
 * data.  A metric is a per-run figure of a function: a source of report's
 * aggregation (calls, total, self, their on-CPU parts, and the self counts
 * of record --costs), or one source divided by another (avg = total /
 * calls).  Its kind says how changes are
 * judged: counts are exact, times are tested against the noise of the
 * runs.  Every output walks this table, so a new metric is a new source in
 * struct report_row and a new row here, not new code. */
#ifndef SLEDTRACE_DIFF_METRIC_H
#define SLEDTRACE_DIFF_METRIC_H

#include <stdbool.h>
#include <stddef.h>

/* What report gives per function and run (offsets into report_row). */
enum diff_source {
	DIFF_SRC_CALLS,
	DIFF_SRC_TOTAL,
	DIFF_SRC_SELF,
	DIFF_SRC_CPU,
	DIFF_SRC_CPU_SELF,
	DIFF_SRC_PROBE, /* no metric: the share of a time that is probes (a label) */
	/* record --costs: the function's own counts (report_row.cost_self) */
	DIFF_SRC_ALLOCS,
	DIFF_SRC_ALLOC_BYTES,
	DIFF_SRC_SYSCALLS,
	DIFF_SRC_PAGE_FAULTS,
	DIFF_NSOURCES
};

enum diff_metric {
	DIFF_CALLS,
	DIFF_TOTAL,
	DIFF_SELF,
	DIFF_AVG,
	DIFF_CPU,
	DIFF_CPU_SELF,
	DIFF_ALLOCS,
	DIFF_ALLOC_BYTES,
	DIFF_SYSCALLS,
	DIFF_PAGE_FAULTS,
	DIFF_NMETRICS
};

/* The counts of a caller -> callee path: its calls and, with record
 * --costs, what those calls spent, their callees included (report_edge).
 * Exact, like the function counts.  Rules name them after the function
 * metrics: rule metric DIFF_NMETRICS + e is edge metric e. */
enum diff_edge_metric {
	DIFF_EDGE_M_CALLS,
	DIFF_EDGE_M_ALLOCS,
	DIFF_EDGE_M_ALLOC_BYTES,
	DIFF_EDGE_M_SYSCALLS,
	DIFF_EDGE_M_PAGE_FAULTS,
	DIFF_NEDGE_METRICS
};

#define DIFF_EDGE_CALLS DIFF_NMETRICS
#define DIFF_NRULE_METRICS (DIFF_NMETRICS + DIFF_NEDGE_METRICS)

enum diff_kind {
	DIFF_KIND_COUNT, /* exact: any change is real */
	DIFF_KIND_TIME,	 /* noisy: a change must stand out from the runs' spread */
};

struct diff_metric_def {
	const char *name;  /* in rules, JSON and CSV */
	const char *title; /* the table's column group */
	enum diff_kind kind;
	enum diff_source num;
	int den; /* a source dividing num run by run, or -1 */
	/* Times: the metric whose run-to-run shift all functions share
	 * (self: the slower or faster machine), and the metric whose size
	 * is held against the noise floor (avg: its function's total). */
	enum diff_metric shift_from, size_of;
	int column; /* position in the table and the markdown */
	/* On-CPU time, made of the scheduler's switches: without them it is
	 * the wall time, so the table and the markdown show it only when a
	 * run has switches. */
	bool on_cpu;
	/* A count of record --costs: a trace recorded without it has none
	 * (0, not "nothing spent"), so the outputs show it only when a run
	 * has costs, and a rule on it needs every run to have them. */
	bool costs;
};

extern const struct diff_metric_def diff_metrics[DIFF_NMETRICS];
/* offsetof(struct report_row, ...) of each source, a uint64_t. */
extern const size_t diff_source_offsets[DIFF_NSOURCES];

/* What a time metric's run total is summed from, over every function of
 * the run: self time, or on-CPU self time for the on-CPU metrics.  Its
 * noise floor is a share of that total, and the functions that measure
 * its shift must hold a share of it. */
static inline enum diff_source diff_metric__basis(enum diff_metric m)
{
	return diff_metrics[diff_metrics[m].shift_from].num;
}

struct diff_edge_metric_def {
	const char *rule; /* in rules: "edge-allocs" */
	const char *name; /* in JSON: "allocs" */
	int cost;	  /* enum cost_kind of report_edge.cost_total; -1: the calls */
};

extern const struct diff_edge_metric_def diff_edge_metrics[DIFF_NEDGE_METRICS];

/* Whether rule metric m is a path's count (the edge metric m -
 * DIFF_NMETRICS) rather than a function's. */
static inline bool diff_metric__is_edge(int m)
{
	return m >= DIFF_NMETRICS;
}

/* Whether rule metric m counts what record --costs counts: a rule on it
 * needs every run recorded with --costs. */
bool diff_metric__costs(int m);

/* The name of a rule's metric, the edge metrics included. */
const char *diff_metric__name(int m);

#endif
