// SPDX-License-Identifier: MIT
/* stats_line.c: see stats_line.h.  The field names are the trace's own
 * vocabulary (model/trace_stats.h), so a line reads as the stored stats. */
#include <inttypes.h>
#include <stdio.h>

#include "format/stats_line.h"
#include "model/trace_stats.h"

/* 32 bytes a field: its name (under 24) and " =", 20 digits at most. */
_Static_assert(sizeof(struct trace_stats) / sizeof(uint64_t) * 48 < STATS_LINE_MAX,
	       "STATS_LINE_MAX holds every field");

void stats_line__format(const struct trace_stats *st, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < trace_stat_nfields && n < len; i++) {
		int k = snprintf(buf + n, len - n, "%s%s=%" PRIu64, i ? " " : "",
				 trace_stat_fields[i].name, trace_stats__get(st, i));

		if (k < 0)
			break;
		n += (size_t)k;
	}
}

uint64_t stats_line__lost(const struct trace_stats *st)
{
	return trace_stats__ring_lost(st) + st->unmatched_exits;
}
