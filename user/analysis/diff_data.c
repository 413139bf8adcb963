// SPDX-License-Identifier: MIT
/* diff_data.c: the machine-readable outputs of `sledtrace diff`: JSON
 * (the schema is documented in docs/diff.md; change it only with a
 * new schema version) and CSV (RFC 4180, one row per function). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff_format.h"
#include "analysis/diff_rules.h"
#include "format/perfetto/perfetto_writer.h"
#include "format/text_out.h"

#define JSON_SCHEMA "sledtrace-diff/1"

static const char *const side_names[2] = { "base", "head" };
static const char *const group_names[3] = { "function", "thread", "process" };

static void json_num(double v, FILE *f)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.3f", v);
}

static size_t shown(const struct diff *d, const struct diff_print_opts *o)
{
	return o->top && o->top < diff__nrows(d) ? o->top : diff__nrows(d);
}

static void json_spread(const struct diff_spread *s, FILE *f)
{
	fputs("{\"median\": ", f);
	json_num(s->median, f);
	fputs(", \"min\": ", f);
	json_num(s->min, f);
	fputs(", \"max\": ", f);
	json_num(s->max, f);
	fputs(", \"mad\": ", f);
	json_num(s->mad, f);
	fputc('}', f);
}

static void json_group(const struct diff_row *r, FILE *f)
{
	if (r->group)
		text_out__json(f, r->group);
	else
		fputs("null", f);
}

static void json_fired_rules(const struct diff *d, const struct diff_row *r, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	const char *sep = "";

	fputc('[', f);
	for (size_t k = 0; k < o->nrules; k++) {
		if (!(r->fired & (1ULL << k)))
			continue;
		fputs(sep, f);
		text_out__json(f, diff_rule__text(o->rules[k]));
		sep = ", ";
	}
	fputc(']', f);
}

static void json_function(const struct diff *d, const struct diff_row *r, FILE *f)
{
	fputs("    {\"function\": ", f);
	text_out__json(f, r->name);
	fputs(", \"object\": ", f);
	text_out__json(f, r->object);
	fputs(", \"group\": ", f);
	json_group(r, f);
	fprintf(f, ", \"status\": \"%s\", \"fired\": ", diff_status_names[r->status]);
	json_fired_rules(d, r, f);
	fprintf(f, ", \"calls_agree\": {\"base\": %s, \"head\": %s}",
		r->calls_agree[0] ? "true" : "false", r->calls_agree[1] ? "true" : "false");
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		fprintf(f, ",\n      \"%s\": {\"base\": ", diff_metric_names[m]);
		json_spread(&r->v[DIFF_BASE][m], f);
		fputs(", \"head\": ", f);
		json_spread(&r->v[DIFF_HEAD][m], f);
		fputs(", \"change\": ", f);
		json_num(r->change[m], f);
		fputs(", \"change_pct\": ", f);
		json_num(r->change_pct[m], f);
		fputc('}', f);
	}
	fputc('}', f);
}

static void json_runs(const struct diff *d, enum diff_side s, FILE *f)
{
	fprintf(f, "    \"%s\": [", side_names[s]);
	for (size_t i = 0; i < diff__nruns(d, s); i++) {
		const struct trace_stats *st = diff__stats(d, s, i);

		fputs(i ? ",\n      {\"path\": " : "\n      {\"path\": ", f);
		text_out__json(f, diff__path(d, s, i));
		fputs(", \"stats\": {", f);
		for (size_t k = 0; k < perfetto_stat_nfields; k++)
			fprintf(f, "%s\"%s\": %" PRIu64, k ? ", " : "",
				perfetto_stat_fields[k].name,
				*(const uint64_t *)((const char *)st +
						    perfetto_stat_fields[k].offset));
		fputs("}}", f);
	}
	fputs("]", f);
}

struct json_notes {
	FILE *f;
	const char *sep;
};

static void json_note(void *ctx, const char *note)
{
	struct json_notes *j = ctx;

	fputs(j->sep, j->f);
	text_out__json(j->f, note);
	j->sep = ",\n    ";
}

static void json_fired(const struct diff *d, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	const char *sep = "\n    ";

	fputs("  \"fired\": [", f);
	for (size_t k = 0; k < o->nrules; k++) {
		enum diff_metric m = diff_rule__metric(o->rules[k]);

		for (size_t i = 0; i < diff__nrows(d); i++) {
			const struct diff_row *r = diff__row(d, i);

			if (!(r->fired & (1ULL << k)))
				continue;
			fputs(sep, f);
			fputs("{\"rule\": ", f);
			text_out__json(f, diff_rule__text(o->rules[k]));
			fputs(", \"function\": ", f);
			text_out__json(f, r->name);
			fputs(", \"object\": ", f);
			text_out__json(f, r->object);
			fputs(", \"group\": ", f);
			json_group(r, f);
			fprintf(f, ", \"metric\": \"%s\", \"base\": ", diff_metric_names[m]);
			json_num(r->v[DIFF_BASE][m].median, f);
			fputs(", \"head\": ", f);
			json_num(r->v[DIFF_HEAD][m].median, f);
			fputs(", \"change\": ", f);
			json_num(r->change[m], f);
			fputs(", \"change_pct\": ", f);
			json_num(r->change_pct[m], f);
			fputc('}', f);
			sep = ",\n    ";
		}
	}
	fputs("],\n", f);
}

static void json_rules(const struct diff *d, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	uint64_t fired = diff__fired(d);

	fputs("  \"rules\": [", f);
	for (size_t k = 0; k < o->nrules; k++) {
		fputs(k ? ", {\"rule\": " : "{\"rule\": ", f);
		text_out__json(f, diff_rule__text(o->rules[k]));
		fprintf(f, ", \"fired\": %s}", fired & (1ULL << k) ? "true" : "false");
	}
	fputs("],\n", f);
}

int diff__print_json(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	const struct diff_opts *dopts = diff__opts(d);
	struct json_notes notes = { f, "\n    " };

	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"verdict\": \"%s\",\n", JSON_SCHEMA,
		diff__fired(d) ? "fail" : "pass");
	fprintf(f, "  \"group\": \"%s\",\n  \"min_time_ns\": %" PRIu64 ",\n  \"times\": \"%s\",\n",
		group_names[dopts->group], dopts->min_time_ns, report__times_name(dopts->times));
	json_rules(d, f);
	fputs("  \"runs\": {\n", f);
	json_runs(d, DIFF_BASE, f);
	fputs(",\n", f);
	json_runs(d, DIFF_HEAD, f);
	fputs("\n  },\n  \"notes\": [", f);
	diff__notes(d, json_note, &notes);
	fputs("],\n", f);
	json_fired(d, f);
	fprintf(f, "  \"functions_compared\": %zu,\n  \"functions\": [\n", diff__nrows(d));
	for (size_t i = 0; i < shown(d, o); i++) {
		json_function(d, diff__row(d, i), f);
		fputs(i + 1 < shown(d, o) ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return 0;
}

/* ---- CSV ---- */

static void csv_header(FILE *f)
{
	static const char *const parts[] = { "base",	 "head",     "change",	 "change_pct",
					     "base_min", "base_max", "base_mad", "head_min",
					     "head_max", "head_mad" };

	fputs("function,object,group,status,fired", f);
	for (int m = 0; m < DIFF_NMETRICS; m++)
		for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++)
			fprintf(f, ",%s_%s", diff_metric_names[m], parts[p]);
	fputs(",times\r\n", f);
}

static void csv_num(double v, FILE *f)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, v == floor(v) && fabs(v) < 9e15 ? "%.0f" : "%.3f", v);
}

static void csv_row(const struct diff *d, const struct diff_row *r, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	char fired[1024] = "";

	for (size_t k = 0; k < o->nrules; k++)
		if (r->fired & (1ULL << k))
			snprintf(fired + strlen(fired), sizeof(fired) - strlen(fired), "%s%s",
				 fired[0] ? ";" : "", diff_rule__text(o->rules[k]));
	text_out__csv(f, r->name);
	fputc(',', f);
	text_out__csv(f, r->object);
	fputc(',', f);
	if (r->group)
		text_out__csv(f, r->group);
	fprintf(f, ",%s,", diff_status_names[r->status]);
	text_out__csv(f, fired);
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		const struct diff_spread *b = &r->v[DIFF_BASE][m], *h = &r->v[DIFF_HEAD][m];
		const double v[] = { b->median, h->median, r->change[m], r->change_pct[m], b->min,
				     b->max,	b->mad,	   h->min,	 h->max,	   h->mad };

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			csv_num(v[i], f);
	}
	/* which times: a column, so that any CSV reader keeps it with the rows */
	fprintf(f, ",%s\r\n", report__times_name(o->times));
}

int diff__print_csv(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	csv_header(f);
	for (size_t i = 0; i < shown(d, o); i++)
		csv_row(d, diff__row(d, i), f);
	return 0;
}
