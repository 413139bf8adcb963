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
};

/* The on-CPU metrics share the shift of on-CPU self time: a machine that
 * is slower at computing, not one where the threads wait longer.  Each
 * on-CPU column stands next to its wall time's: without switches the
 * columns close up to calls, self, total, avg. */
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
};

const char *diff_metric__name(int m)
{
	return m == DIFF_EDGE_CALLS ? "edge-calls" : diff_metrics[m].name;
}
