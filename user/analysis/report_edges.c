// SPDX-License-Identifier: MIT
/* report_edges.c: `report --callers=FN` / `--callees=FN`: the direct
 * callers (or callees) of every function named FN, with how many calls
 * went over each edge and their summed inclusive duration.  A call with
 * no traced caller has the caller "[root]". */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_int.h"
#include "format/text_out.h"

struct sel {
	const struct report *r;
	bool callers; /* else callees */
};

static const char *other(const struct sel *s, const struct edge *e)
{
	return report__name(s->r, s->callers ? e->caller : e->callee);
}

static int cmp_edges(const void *pa, const void *pb, void *ctx)
{
	const struct edge *a = *(const struct edge *const *)pa,
			  *b = *(const struct edge *const *)pb;

	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return strcmp(other(ctx, a), other(ctx, b));
}

static bool named(const struct report *r, uint32_t fid, const char *name)
{
	return fid && fid < r->nnames && r->names[fid] && !strcmp(r->names[fid], name);
}

static void put_field(FILE *f, enum report_format fmt, const char *s)
{
	if (fmt == REPORT_TSV)
		text_out__tsv(f, s);
	else
		text_out__csv(f, s);
}

static void print_edge(const struct sel *s, const struct edge *e, size_t i, FILE *f)
{
	enum report_format fmt = s->r->o.format;
	uint64_t avg = e->calls ? e->dur_sum / e->calls : 0;
	char sep = fmt == REPORT_TSV ? '\t' : ',';

	if (fmt == REPORT_TABLE) {
		fprintf(f, "%12" PRIu64 " %16" PRIu64 " %12" PRIu64 "  %s\n", e->calls, e->dur_sum,
			avg, other(s, e));
	} else if (fmt == REPORT_JSON) {
		fputs(i ? ",\n{\"caller\":" : "\n{\"caller\":", f);
		text_out__json(f, report__name(s->r, e->caller));
		fputs(",\"callee\":", f);
		text_out__json(f, report__name(s->r, e->callee));
		fprintf(f,
			",\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 "}",
			e->calls, e->dur_sum, avg);
	} else {
		put_field(f, fmt, report__name(s->r, e->caller));
		fputc(sep, f);
		put_field(f, fmt, report__name(s->r, e->callee));
		fprintf(f, "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "\n", sep, e->calls, sep,
			e->dur_sum, sep, avg);
	}
}

static void header(const struct sel *s, const char *fn, FILE *f)
{
	enum report_format fmt = s->r->o.format;

	if (fmt == REPORT_TABLE) {
		report__put_times(s->r, f);
		fprintf(f, "%s of %s\n%12s %16s %12s  %s\n", s->callers ? "callers" : "callees", fn,
			"CALLS", "TOTAL_NS", "AVG_NS", s->callers ? "CALLER" : "CALLEE");
	} else if (fmt == REPORT_JSON) {
		fprintf(f,
			"{\"schema\":\"sledtrace.edges/1\",\"direction\":\"%s\",\"times\":\"%s\","
			"\"function\":",
			s->callers ? "callers" : "callees", report__times_name(s->r->o.times));
		text_out__json(f, fn);
		fputs(",\"edges\":[", f);
	} else {
		fputs(fmt == REPORT_TSV ? "caller\tcallee\tcalls\ttotal_ns\tavg_ns\n"
					: "caller,callee,calls,total_ns,avg_ns\n",
		      f);
	}
}

/* JSON: "values":[...], record --capture's values of each function
 * named fn that has them (usually one). */
static void json_values(struct report *r, const char *fn, FILE *f)
{
	bool first = true;

	fputs(",\"values\":[", f);
	for (uint32_t fid = 1; fid < r->nnames; fid++) {
		if (!named(r, fid, fn) || !report_values__has(&r->values, fid))
			continue;
		fputs(first ? "" : ",", f);
		report_values__json(&r->values, fid, f);
		first = false;
	}
	fputc(']', f);
}

int report_edges__print(struct report *r, FILE *f)
{
	struct sel s = { .r = r, .callers = r->o.callers != NULL };
	const char *fn = s.callers ? r->o.callers : r->o.callees;
	const struct edge **v = malloc((r->nedges ? r->nedges : 1) * sizeof(*v));
	bool known = false;
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t fid = 1; fid < r->nnames && !known; fid++)
		known = named(r, fid, fn);
	if (!known) {
		free(v);
		return -ENOENT;
	}
	for (size_t i = 0; i < r->nedges; i++)
		if (named(r, s.callers ? r->edges[i].callee : r->edges[i].caller, fn))
			v[n++] = &r->edges[i];
	qsort_r(v, n, sizeof(*v), cmp_edges, &s);
	if (r->o.top && r->o.top < n)
		n = r->o.top;
	header(&s, fn, f);
	for (size_t i = 0; i < n; i++)
		print_edge(&s, v[i], i, f);
	if (r->o.format == REPORT_JSON) {
		fputs("\n]", f);
		json_values(r, fn, f);
		fputc(',', f);
	}
	report__put_stats(r, f);
	if (r->o.format == REPORT_JSON)
		fputs("}\n", f);
	free(v);
	return 0;
}
