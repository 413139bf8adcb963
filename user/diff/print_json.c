// SPDX-License-Identifier: MIT
/* print_json.c: `sledtrace diff --format=json`.  The schema is documented
 * in docs/diff.md; change it only with a new schema version. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/judge_rules.h"
#include "diff/print.h"
#include "diff/print_text.h"
#include "format/perfetto/perfetto_writer.h"
#include "format/text_out.h"

#define JSON_SCHEMA "sledtrace-diff/2"

static void json_num(double v, FILE *f)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 9e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}

static void json_pct(double ratio, FILE *f)
{
	json_num(100 * (ratio - 1), f);
}

static void json_str_or_null(const char *s, FILE *f)
{
	if (s)
		text_out__json(f, s);
	else
		fputs("null", f);
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

static void json_rule_list(const struct diff *d, uint64_t bits, FILE *f)
{
	const char *sep = "";

	fputc('[', f);
	for (size_t k = 0; k < diff__opts(d)->nrules; k++) {
		if (!(bits & (1ULL << k)))
			continue;
		fputs(sep, f);
		text_out__json(f, diff_rule__text(diff__opts(d)->rules[k]));
		sep = ", ";
	}
	fputc(']', f);
}

static void json_estimate(const struct diff_estimate *e, FILE *f)
{
	if (isnan(e->ratio)) {
		fputs("null", f);
		return;
	}
	fputs("{\"change_pct\": ", f);
	json_pct(e->ratio, f);
	fputs(", \"low_pct\": ", f);
	json_pct(e->lo, f);
	fputs(", \"high_pct\": ", f);
	json_pct(e->hi, f);
	fputs(", \"p\": ", f);
	json_num(e->p, f);
	fputs(", \"noise_pct\": ", f);
	json_num(100 * e->sd, f);
	fprintf(f, ", \"tested\": %s, \"significant\": %s}", e->tested ? "true" : "false",
		e->significant ? "true" : "false");
}

static void json_metric(const struct diff_row *r, enum diff_metric m, FILE *f)
{
	fprintf(f, ",\n      \"%s\": {\"base\": ", diff_metrics[m].name);
	json_spread(&r->v[DIFF_BASE][m], f);
	fputs(", \"head\": ", f);
	json_spread(&r->v[DIFF_HEAD][m], f);
	fputs(", \"change\": ", f);
	json_num(r->change[m], f);
	fputs(", \"change_pct\": ", f);
	json_num(r->change_pct[m], f);
	if (diff_metrics[m].kind == DIFF_KIND_TIME) {
		fputs(", \"estimate\": ", f);
		json_estimate(&r->est[m], f);
	}
	fputc('}', f);
}

/* A share in [0, 1] with 4 digits, null when there is none. */
static void json_share(double x, FILE *f)
{
	if (isnan(x))
		fputs("null", f);
	else
		fprintf(f, "%.4f", x);
}

static void json_function(const struct diff *d, const struct diff_row *r, FILE *f)
{
	fputs("    {\"function\": ", f);
	text_out__json(f, r->name);
	fputs(", \"object\": ", f);
	text_out__json(f, r->object);
	fputs(", \"group\": ", f);
	json_str_or_null(r->group, f);
	fprintf(f, ", \"status\": \"%s\", \"fired\": ", diff_status_names[r->status]);
	json_rule_list(d, r->fired, f);
	fputs(", \"inconclusive\": ", f);
	json_rule_list(d, r->unsure, f);
	fputs(", \"uncleared\": ", f);
	json_rule_list(d, r->uncleared, f);
	fprintf(f, ", \"calls_agree\": {\"base\": %s, \"head\": %s}, \"unprobed\": %s",
		r->calls_agree[0] ? "true" : "false", r->calls_agree[1] ? "true" : "false",
		r->unprobed ? "true" : "false");
	fputs(", \"probe_share\": {\"base\": ", f);
	json_share(r->probe_share[DIFF_BASE], f);
	fputs(", \"head\": ", f);
	json_share(r->probe_share[DIFF_HEAD], f);
	fputc('}', f);
	/* the costs only from runs recorded with them: the JSON of other
	 * runs stays as it was */
	for (int m = 0; m < DIFF_NMETRICS; m++)
		if (!diff_metrics[m].costs || diff_text__ncosts(d))
			json_metric(r, (enum diff_metric)m, f);
	fputc('}', f);
}

static void json_edge(const struct diff *d, const struct diff_edge *e, FILE *f)
{
	fputs("    {\"caller\": ", f);
	text_out__json(f, e->caller);
	fputs(", \"caller_object\": ", f);
	text_out__json(f, e->caller_object);
	fputs(", \"callee\": ", f);
	text_out__json(f, e->callee);
	fputs(", \"callee_object\": ", f);
	text_out__json(f, e->callee_object);
	fprintf(f, ", \"status\": \"%s\", \"fired\": ", diff_status_names[e->status]);
	json_rule_list(d, e->fired, f);
	fputs(", \"inconclusive\": ", f);
	json_rule_list(d, e->unsure, f);
	/* calls, and what they spent only from runs recorded with costs: the
	 * JSON of other runs stays as it was */
	for (int m = 0; m < DIFF_NEDGE_METRICS; m++) {
		if (diff_edge_metrics[m].cost >= 0 && !diff_text__ncosts(d))
			continue;
		fprintf(f, ", \"%s\": {\"base\": ", diff_edge_metrics[m].name);
		json_spread(&e->v[DIFF_BASE][m], f);
		fputs(", \"head\": ", f);
		json_spread(&e->v[DIFF_HEAD][m], f);
		fputs(", \"change\": ", f);
		json_num(e->change[m], f);
		fputs(", \"change_pct\": ", f);
		json_num(e->change_pct[m], f);
		fputc('}', f);
	}
	fputc('}', f);
}

static void json_runs(const struct diff *d, enum diff_side s, FILE *f)
{
	fprintf(f, "    \"%s\": [", diff_side_names[s]);
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

struct json_list {
	const struct diff *d;
	FILE *f;
	const char *sep;
};

static void json_note(void *ctx, const char *note)
{
	struct json_list *j = ctx;

	fputs(j->sep, j->f);
	text_out__json(j->f, note);
	j->sep = ",\n    ";
}

static void json_finding(void *ctx, const struct diff_finding *fd)
{
	struct json_list *j = ctx;
	int m = diff_rule__metric(diff__opts(j->d)->rules[fd->rule]);
	/* a path's metric; unused for a function's */
	int em = diff_metric__is_edge(m) ? m - DIFF_NMETRICS : 0;
	char label[4096], ev[1024];
	FILE *f = j->f;

	fputs(j->sep, f);
	fputs("{\"rule\": ", f);
	text_out__json(f, diff_rule__text(diff__opts(j->d)->rules[fd->rule]));
	fprintf(f, ", \"metric\": \"%s\", \"target\": ", diff_metric__name(m));
	text_out__json(f, diff_finding__label(fd, label, sizeof(label)));
	if (fd->row) {
		fputs(", \"function\": ", f);
		text_out__json(f, fd->row->name);
		fputs(", \"object\": ", f);
		text_out__json(f, fd->row->object);
		fputs(", \"group\": ", f);
		json_str_or_null(fd->row->group, f);
	}
	fputs(", \"base\": ", f);
	json_num(fd->row ? fd->row->v[DIFF_BASE][m].median : fd->edge->v[DIFF_BASE][em].median, f);
	fputs(", \"head\": ", f);
	json_num(fd->row ? fd->row->v[DIFF_HEAD][m].median : fd->edge->v[DIFF_HEAD][em].median, f);
	fputs(", \"change\": ", f);
	json_num(fd->row ? fd->row->change[m] : fd->edge->change[em], f);
	fputs(", \"change_pct\": ", f);
	json_num(fd->row ? fd->row->change_pct[m] : fd->edge->change_pct[em], f);
	fputs(", \"evidence\": ", f);
	text_out__json(f, diff_finding__evidence(j->d, fd, ev, sizeof(ev)));
	fputc('}', f);
	j->sep = ",\n    ";
}

static void json_findings(const struct diff *d, const char *key, bool fired, FILE *f)
{
	struct json_list j = { d, f, "\n    " };

	fprintf(f, "  \"%s\": [", key);
	diff__findings(d, fired, !fired, json_finding, &j);
	fputs("],\n", f);
}

static void json_rules(const struct diff *d, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	uint64_t fired = diff__fired(d), unsure = diff__unsure(d);

	fputs("  \"rules\": [", f);
	for (size_t k = 0; k < o->nrules; k++) {
		fputs(k ? ", {\"rule\": " : "{\"rule\": ", f);
		text_out__json(f, diff_rule__text(o->rules[k]));
		fprintf(f, ", \"fired\": %s, \"inconclusive\": %s, \"uncleared\": %zu}",
			fired & (1ULL << k) ? "true" : "false",
			unsure & (1ULL << k) ? "true" : "false",
			diff__summary(d)->uncleared[k].functions);
	}
	fputs("],\n", f);
}

static void json_shift(const char *key, const struct diff_shift_summary *s, FILE *f)
{
	fprintf(f,
		",\n  \"%s\": {\"measured\": %s, \"functions\": %zu, \"head_vs_base_pct\": ", key,
		s->measured ? "true" : "false", s->functions);
	json_pct(s->ratio, f);
	fputc('}', f);
}

static void json_head(const struct diff *d, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	const struct diff_summary *s = diff__summary(d);
	struct json_list j = { d, f, "\n    " };

	fprintf(f, "{\n  \"schema\": \"%s\",\n  \"verdict\": \"%s\",\n  \"reasons\": [",
		JSON_SCHEMA, diff_verdict_names[s->verdict]);
	for (size_t i = 0; i < s->nreasons; i++)
		json_note(&j, s->reasons[i]);
	fprintf(f, "],\n  \"group\": \"%s\",\n  \"times\": \"%s\",\n  \"min_time_ns\": %" PRIu64,
		diff_group_names[o->group], report__times_name(o->times), o->min_time_ns);
	fputs(",\n  \"confidence\": ", f);
	json_num(o->confidence, f);
	fputs(",\n  \"noise_floor\": ", f);
	json_num(o->noise_floor, f);
	fputs(",\n  \"noise_floor_ns\": ", f);
	json_num(o->noise_floor * s->run_total_ns[DIFF_SRC_SELF], f);
	fputs(",\n  \"noise_floor_cpu_ns\": ", f);
	json_num(o->noise_floor * s->run_total_ns[DIFF_SRC_CPU_SELF], f);
	json_shift("shift", &s->shift[DIFF_SELF], f);
	json_shift("cpu_shift", &s->shift[DIFF_CPU_SELF], f);
	fputs(",\n  \"runs_needed\": ", f);
	json_num(s->runs_needed ? s->runs_needed : NAN, f);
	fputs(",\n  \"first_look_runs\": ", f);
	json_num(o->first_look_runs ? o->first_look_runs : NAN, f);
	fputs(",\n", f);
}

int diff__print_json(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	struct json_list notes = { d, f, "\n    " };
	size_t shown = diff_text__shown(d, o->top);

	json_head(d, f);
	json_rules(d, f);
	fputs("  \"runs\": {\n", f);
	json_runs(d, DIFF_BASE, f);
	fputs(",\n", f);
	json_runs(d, DIFF_HEAD, f);
	fputs("\n  },\n  \"notes\": [", f);
	diff__notes(d, json_note, &notes);
	fputs("],\n", f);
	json_findings(d, "fired", true, f);
	json_findings(d, "inconclusive", false, f);
	fprintf(f, "  \"functions_compared\": %zu,\n  \"functions\": [\n", diff__nrows(d));
	for (size_t i = 0; i < shown; i++) {
		json_function(d, diff__row(d, i), f);
		fputs(i + 1 < shown ? ",\n" : "\n", f);
	}
	fputs("  ],\n  \"edges\": [\n", f);
	for (size_t i = 0; i < diff__nedges(d); i++) {
		json_edge(d, diff__edge(d, i), f);
		fputs(i + 1 < diff__nedges(d) ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
	return 0;
}
