// SPDX-License-Identifier: MIT
/* metric.c: the metric table (see metric.h). */
#include <stddef.h>

#include "analysis/report.h"
#include "diff/metric.h"

const size_t diff_source_offsets[DIFF_NSOURCES] = {
	[DIFF_SRC_CALLS] = offsetof(struct report_row, calls),
	[DIFF_SRC_TOTAL] = offsetof(struct report_row, total_ns),
	[DIFF_SRC_SELF] = offsetof(struct report_row, self_ns),
	[DIFF_SRC_CPU] = offsetof(struct report_row, cpu_total_ns),
	[DIFF_SRC_CPU_SELF] = offsetof(struct report_row, cpu_self_ns),
	[DIFF_SRC_PROBE] = offsetof(struct report_row, probe_ns),
	[DIFF_SRC_ALLOCS] = offsetof(struct report_row, cost_self[COST_ALLOCS]),
	[DIFF_SRC_ALLOC_BYTES] = offsetof(struct report_row, cost_self[COST_ALLOC_BYTES]),
	[DIFF_SRC_SYSCALLS] = offsetof(struct report_row, cost_self[COST_SYSCALLS]),
	[DIFF_SRC_PAGE_FAULTS] = offsetof(struct report_row, cost_self[COST_PAGE_FAULTS]),
};

/* The on-CPU metrics share the shift of on-CPU self time: a machine that
 * is slower at computing, not one where the threads wait longer.  Each
 * on-CPU column stands next to its wall time's: without switches the
 * columns close up to calls, self, total, avg.  The costs are self counts,
 * so that a rule fires on the function that gained an allocation and not
 * on every caller above it; exact, like calls, they come last.  Frees and
 * voluntary switches are left out: a free follows its allocation, and
 * whether a thread sleeps depends on the others. */
const struct diff_metric_def diff_metrics[DIFF_NMETRICS] = {
	[DIFF_CALLS] = { "calls", "CALLS", DIFF_KIND_COUNT, DIFF_SRC_CALLS, -1, DIFF_CALLS,
			 DIFF_CALLS, 0, false },
	[DIFF_TOTAL] = { "total", "TOTAL", DIFF_KIND_TIME, DIFF_SRC_TOTAL, -1, DIFF_SELF,
			 DIFF_TOTAL, 3, false },
	[DIFF_SELF] = { "self", "SELF", DIFF_KIND_TIME, DIFF_SRC_SELF, -1, DIFF_SELF, DIFF_SELF, 1,
			false },
	[DIFF_AVG] = { "avg", "AVG", DIFF_KIND_TIME, DIFF_SRC_TOTAL, DIFF_SRC_CALLS, DIFF_SELF,
		       DIFF_TOTAL, 5, false },
	[DIFF_CPU] = { "cpu", "CPU", DIFF_KIND_TIME, DIFF_SRC_CPU, -1, DIFF_CPU_SELF, DIFF_CPU, 4,
		       true },
	[DIFF_CPU_SELF] = { "cpu-self", "CPU-SELF", DIFF_KIND_TIME, DIFF_SRC_CPU_SELF, -1,
			    DIFF_CPU_SELF, DIFF_CPU_SELF, 2, true },
	[DIFF_ALLOCS] = { "allocs", "ALLOCS", DIFF_KIND_COUNT, DIFF_SRC_ALLOCS, -1, DIFF_ALLOCS,
			  DIFF_ALLOCS, 6, false, true },
	[DIFF_ALLOC_BYTES] = { "alloc-bytes", "ALLOC-BYTES", DIFF_KIND_COUNT, DIFF_SRC_ALLOC_BYTES,
			       -1, DIFF_ALLOC_BYTES, DIFF_ALLOC_BYTES, 7, false, true },
	[DIFF_SYSCALLS] = { "syscalls", "SYSCALLS", DIFF_KIND_COUNT, DIFF_SRC_SYSCALLS, -1,
			    DIFF_SYSCALLS, DIFF_SYSCALLS, 8, false, true },
	[DIFF_PAGE_FAULTS] = { "page-faults", "PAGE-FAULTS", DIFF_KIND_COUNT, DIFF_SRC_PAGE_FAULTS,
			       -1, DIFF_PAGE_FAULTS, DIFF_PAGE_FAULTS, 9, false, true },
};

/* A path's costs are inclusive: a change under the callee is the path's
 * too, so every path above a new allocation changes with it. */
const struct diff_edge_metric_def diff_edge_metrics[DIFF_NEDGE_METRICS] = {
	[DIFF_EDGE_M_CALLS] = { "edge-calls", "calls", -1 },
	[DIFF_EDGE_M_ALLOCS] = { "edge-allocs", "allocs", COST_ALLOCS },
	[DIFF_EDGE_M_ALLOC_BYTES] = { "edge-alloc-bytes", "alloc-bytes", COST_ALLOC_BYTES },
	[DIFF_EDGE_M_SYSCALLS] = { "edge-syscalls", "syscalls", COST_SYSCALLS },
	[DIFF_EDGE_M_PAGE_FAULTS] = { "edge-page-faults", "page-faults", COST_PAGE_FAULTS },
};

bool diff_metric__costs(int m)
{
	return diff_metric__is_edge(m) ? diff_edge_metrics[m - DIFF_NMETRICS].cost >= 0
				       : diff_metrics[m].costs;
}

const char *diff_metric__name(int m)
{
	return diff_metric__is_edge(m) ? diff_edge_metrics[m - DIFF_NMETRICS].rule
				       : diff_metrics[m].name;
}
