/* SPDX-License-Identifier: MIT */
/* report_int.h: what report.c aggregates and report_print.c prints. */
#ifndef SLEDTRACE_REPORT_INT_H
#define SLEDTRACE_REPORT_INT_H

#include "model/trace_gaps.h"
#include <regex.h>
#include <stdio.h>
#include <stdint.h>

#include "analysis/histogram.h"
#include "analysis/report.h"
#include "analysis/report_values.h"
#include "model/probe_comp.h"
#include "model/thread_slots.h"
#include "util/u64map.h"

struct row {
	uint32_t group; /* 0, or thread (--by-thread) or process index + 1 */
	uint32_t fid;
	uint64_t calls;	   /* with elided calls */
	uint64_t measured; /* calls with a duration */
	uint64_t elided;   /* calls a writer elided: counted, never timed */
	/* Sums and extremes of the calls' figures (report.c), raw or
	 * compensated as the report's times say. */
	uint64_t total, self, min, max;
	uint64_t cpu_total, cpu_self; /* the same sums of on-CPU time */
	/* The probe cost estimated inside the calls' raw total and raw self
	 * (probe_comp.h, clamped per call at the raw figure), summed as total
	 * and self are: what compensation takes out, or would. */
	uint64_t probe, probe_self;
	uint64_t cpu_probe; /* the same inside the raw on-CPU total */
	/* record --costs: the calls' own counts, and their inclusive ones
	 * (the outermost activations', as total is), and their own system
	 * calls by number */
	uint64_t cost_self[COST_NKINDS], cost_total[COST_NKINDS];
	struct cost_syscall *sys;
	uint32_t nsys, capsys;
	struct histogram *hist;
};

struct edge {
	uint32_t caller, callee;	  /* caller 0: no caller (a thread's root) */
	uint64_t calls, dur_sum;	  /* dur_sum: the calls' figures */
	uint64_t cost_total[COST_NKINDS]; /* record --costs: the calls' inclusive counts */
};

/* A thread (--by-thread) or process (--by-process) as rows name it. */
struct rgroup {
	uint32_t pid, tid;
	char *name, *process;
};

/* Per open frame: what its finished direct children add up to. */
struct rdepth {
	uint64_t child;		  /* their inclusive time */
	uint64_t cpu_child;	  /* their inclusive on-CPU time */
	struct comp_depth probes; /* the traced calls inside them */
};

/* Per traced thread: what a leave needs to split time. */
struct rthread {
	struct rdepth *at; /* by depth */
	uint32_t *active;  /* by fid: open activations */
	size_t ndepth, nactive;
};

struct report {
	struct report_opts o;
	regex_t re;
	bool have_re;
	char **names; /* by fid */
	size_t nnames;
	struct row *rows;
	size_t nrows, caprows;
	struct edge *edges;
	size_t nedges, capedges;
	struct u64map row_idx, edge_idx, group_idx;
	struct thread_slots threads; /* struct rthread by thread index */
	struct rgroup *groups;	     /* by group id, through group_idx */
	size_t ngroups;
	struct trace_stats st;
	struct trace_gaps gaps;	     /* coverage gaps the trace lists */
	struct comp_cost cost;	     /* handed over before the calls */
	struct report_values values; /* record --capture's, by function */
	/* The threads' outermost calls: their raw time and the probe cost
	 * estimated inside it (the run-wide share). */
	uint64_t root_raw, root_probe;
	bool cost_known;
};

/* --callers/--callees output (report_edges.c). */
int report_edges__print(struct report *r, FILE *f);
/* The trace's stats and coverage gaps: "stats: ..." after the table,
 * "# stats: ..." last in TSV and CSV; JSON carries them as objects
 * (report_stats.c). */
void report__put_stats(const struct report *r, FILE *f);
/* The table's first line: which times its columns show (report_stats.c). */
void report__put_times(const struct report *r, FILE *f);
/* The share of the threads' outermost calls' raw time that is probe
 * cost, estimated (report.c): the run's, in one figure. */
double report__probe_share(const struct report *r);
/* The thread or process a group id names; NULL when unknown. */
const struct rgroup *report__group(const struct report *r, uint32_t id);

#endif
