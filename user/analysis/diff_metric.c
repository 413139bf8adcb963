// SPDX-License-Identifier: MIT
/* diff_metric.c: the metric table (see diff_metric.h). */
#include <stddef.h>

#include "analysis/diff_metric.h"
#include "analysis/report.h"

const size_t diff_source_offsets[DIFF_NSOURCES] = {
	[DIFF_SRC_CALLS] = offsetof(struct report_row, calls),
	[DIFF_SRC_TOTAL] = offsetof(struct report_row, total_ns),
	[DIFF_SRC_SELF] = offsetof(struct report_row, self_ns),
};

const struct diff_metric_def diff_metrics[DIFF_NMETRICS] = {
	[DIFF_CALLS] = { "calls", "CALLS", DIFF_KIND_COUNT, DIFF_SRC_CALLS, -1, DIFF_CALLS,
			 DIFF_CALLS, 0 },
	[DIFF_TOTAL] = { "total", "TOTAL", DIFF_KIND_TIME, DIFF_SRC_TOTAL, -1, DIFF_SELF,
			 DIFF_TOTAL, 2 },
	[DIFF_SELF] = { "self", "SELF", DIFF_KIND_TIME, DIFF_SRC_SELF, -1, DIFF_SELF, DIFF_SELF,
			1 },
	[DIFF_AVG] = { "avg", "AVG", DIFF_KIND_TIME, DIFF_SRC_TOTAL, DIFF_SRC_CALLS, DIFF_SELF,
		       DIFF_TOTAL, 3 },
};

enum diff_metric diff_metric__at_column(int c)
{
	for (int m = 0; m < DIFF_NMETRICS; m++)
		if (diff_metrics[m].column == c)
			return (enum diff_metric)m;
	return DIFF_CALLS;
}

const char *diff_metric__name(int m)
{
	return m == DIFF_EDGE_CALLS ? "edge-calls" : diff_metrics[m].name;
}
