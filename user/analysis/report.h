/* SPDX-License-Identifier: MIT */
/* report.h: a frame_sink that aggregates a trace per function (or per
 * thread or process and function, or per caller -> callee edge) and
 * prints what `sledtrace report` shows, as a table or as TSV, CSV, JSON or
 * Bencher Metric Format
 * (schemas in docs/exports.md). */
#ifndef SLEDTRACE_REPORT_H
#define SLEDTRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/frames.h"

enum report_sort {
	REPORT_SORT_CALLS,
	REPORT_SORT_TOTAL,
	REPORT_SORT_SELF,
	REPORT_SORT_NAME,
	REPORT_SORT_AVG,
	REPORT_SORT_MAX,
	REPORT_SORT_CPU,
	REPORT_SORT_CPU_SELF,
	REPORT_SORT_WAIT, /* self less on-CPU self: time off the CPU in the function itself */
};
/* BMF: Bencher Metric Format, a benchmark per row (report_bmf.h). */
enum report_format { REPORT_TABLE, REPORT_TSV, REPORT_CSV, REPORT_JSON, REPORT_BMF };
/* Raw: as the timestamps say.  Compensated: each call less the probe cost
 * of every probe hit inside it, clamped at 0 (model/probe_comp.h).  Every
 * time column of a row is one kind: total and self sum the calls' figures,
 * min/max/percentiles are over them, avg is total / calls.  On-CPU time
 * (struct frame.cpu_ns) is compensated alike: the probes run on the CPU. */
enum report_times { REPORT_TIMES_RAW, REPORT_TIMES_COMPENSATED };

struct report_opts {
	bool by_thread;
	enum report_sort sort; /* numbers descending, then name, then tid */
	enum report_format format;
	bool by_process;
	uint32_t top;	      /* print the first N rows; 0: all */
	const char *function; /* POSIX extended regex on names; NULL: all */
	const char *callers;  /* print the callers of this function instead */
	const char *callees;  /* print the callees of this function instead */
	uint32_t width;	      /* table: columns to fit (names elided); 0: no limit */
	enum report_times times;
	bool edges; /* keep caller -> callee edges without --callers/--callees (diff) */
	/* print the critical path of the slowest call of a function matching
	 * this regex instead (analysis/critical_path.h) */
	const char *critical_path;
	uint32_t critical_calls; /* the slowest this many calls' paths; 0: 1 */
	/* print each function's own system calls by name instead (record
	 * --costs; analysis/report_costs.h): -EINVAL from report__print when
	 * the trace has no costs */
	bool syscalls;
};

/* "raw" or "compensated", as every output names them. */
const char *report__times_name(enum report_times t);
/* The same, in enum report_times' order and NULL-terminated: the values
 * of --times (report, diff, convert). */
extern const char *const report_times_names[];

struct report;

/* -EINVAL when opts->function is not a valid regex. */
int report__new(const struct report_opts *opts, struct report **out);
struct frame_sink report__sink(struct report *r);
/* After the sink's finish(); returns 0, -ENOENT when --callers/--callees
 * names no function of the trace, or another negative errno. */
int report__print(struct report *r, FILE *f);

/* One aggregated row, for consumers that compute on the numbers (diff).
 * thread is 0, or with opts.by_thread 1 + trace_thread.index (with
 * opts.by_process 1 + the process index); name is valid until
 * report__free. */
struct report_row {
	uint32_t thread, fid;
	const char *name;
	uint64_t calls, total_ns, self_ns;
	/* The same two of on-CPU time: equal to total and self in a trace
	 * without scheduler switches (stats.switches 0). */
	uint64_t cpu_total_ns, cpu_self_ns;
	/* The probe cost estimated inside the row's raw total (the figure
	 * shown, less this, is raw time when compensated). */
	uint64_t probe_ns;
	/* record --costs (model/frame_costs.h): the calls' own counts and
	 * their inclusive ones; 0 in a trace without costs (stats.costs 0) */
	uint64_t cost_self[COST_NKINDS], cost_total[COST_NKINDS];
};

/* A caller -> callee edge, kept with opts.edges (or --callers/--callees):
 * caller 0 is a thread's first call.  Not per thread or process. */
struct report_edge {
	uint32_t caller, callee; /* function ids */
	uint64_t calls;
	/* record --costs: what the callee's calls from this caller spent,
	 * their callees included (0 without costs) */
	uint64_t cost_total[COST_NKINDS];
};

/* After the sink's finish(): rows and edges in no particular order, and
 * the trace's statistics. */
size_t report__nrows(const struct report *r);
void report__row(const struct report *r, size_t i, struct report_row *out);
size_t report__nedges(const struct report *r);
/* The name of function fid: "[root]" for 0, "[unknown]" when the trace
 * never named it. */
const char *report__name(const struct report *r, uint32_t fid);
void report__edge(const struct report *r, size_t i, struct report_edge *out);
const struct trace_stats *report__stats(const struct report *r);
void report__free(struct report *r);

#endif
