// SPDX-License-Identifier: MIT
/* report_stats.c: what every report output carries besides its rows:
 * which times the columns show, the trace's stats and its coverage gaps.
 * Used by the table (report_print.c) and the callers/callees lists
 * (report_edges.c), and calls neither. */
#include <inttypes.h>
#include <stdio.h>

#include "analysis/report_int.h"
#include "format/stats_line.h"
#include "format/text_out.h"
#include "model/trace_stats.h"

/* Which times every column shows, first: they are never mixed. */
void report__put_times(const struct report *r, FILE *f)
{
	const struct comp_cost *c = &r->cost;

	if (r->o.times == REPORT_TIMES_COMPENSATED && c->inside_ns &&
	    c->call_ns == 2 * c->inside_ns)
		fprintf(f, "times: compensated, each call less %" PRIu64 " ns per probe hit\n",
			c->inside_ns);
	else if (r->o.times == REPORT_TIMES_COMPENSATED && c->inside_ns)
		fprintf(f,
			"times: compensated, each call less %" PRIu64
			" ns of its own probes and %" PRIu64 " ns per traced call inside it\n",
			c->inside_ns, c->call_ns);
	else if (r->o.times == REPORT_TIMES_COMPENSATED)
		fputs("times: compensated, but no traced call was short enough to measure the "
		      "probe cost: nothing taken out\n",
		      f);
	else
		fputs("times: raw, as the timestamps say\n", f);
}

/* JSON: "coverage_gaps":[{...}] after the stats. */
static void put_gaps_json(const struct report *r, FILE *f)
{
	fputs(",\"coverage_gaps\":[", f);
	for (size_t i = 0; i < r->gaps.n; i++) {
		const struct trace_gap *g = &r->gaps.g[i];

		fprintf(f, "%s{\"pid\":%u,\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",",
			i ? "," : "", g->pid, g->start_ns, g->end_ns);
		fputs("\"object\":", f);
		if (g->object)
			text_out__json(f, g->object);
		else
			fputs("null", f);
		fputs(",\"why\":", f);
		text_out__json(f, g->why);
		fputc('}', f);
	}
	fputc(']', f);
}

/* Table: one "coverage gap:" line each; TSV and CSV: "# coverage gap:". */
static void put_gaps(const struct report *r, FILE *f)
{
	char line[1024];

	for (size_t i = 0; i < r->gaps.n; i++) {
		trace_gaps__describe(&r->gaps.g[i], line, sizeof(line));
		fprintf(f, "%scoverage gap: %s\n", r->o.format == REPORT_TABLE ? "" : "# ", line);
	}
}

void report__put_stats(const struct report *r, FILE *f)
{
	char line[STATS_LINE_MAX];

	if (r->o.format == REPORT_JSON) {
		fputs("\"stats\":{", f);
		for (size_t i = 0; i < trace_stat_nfields; i++)
			fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", trace_stat_fields[i].name,
				trace_stats__get(&r->st, i));
		fputc('}', f);
		put_gaps_json(r, f);
		return;
	}
	stats_line__format(&r->st, line, sizeof(line));
	/* Which times the rows show travels with the stats in every format. */
	if (r->o.format == REPORT_TABLE)
		fprintf(f, "\nstats: %s\ntimes: %s\n", line, report__times_name(r->o.times));
	else
		fprintf(f, "# stats: %s times=%s\n", line, report__times_name(r->o.times));
	put_gaps(r, f);
}
