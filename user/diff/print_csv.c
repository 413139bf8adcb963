// SPDX-License-Identifier: MIT
/* print_csv.c: `sledtrace diff --format=csv`: RFC 4180, one row per
 * function, with every metric's medians, change and spread, and for the
 * time metrics the shift-corrected estimate.  Call paths are in the JSON
 * only: they would need columns of their own. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/judge_rules.h"
#include "diff/print.h"
#include "diff/print_text.h"
#include "format/text_out.h"

static const char *const parts[] = { "base",	 "head",     "change",	 "change_pct", "base_min",
				     "base_max", "base_mad", "head_min", "head_max",   "head_mad" };
static const char *const est_parts[] = { "est_pct", "low_pct", "high_pct", "p" };

#define NPARTS (sizeof(parts) / sizeof(parts[0]))
#define NEST (sizeof(est_parts) / sizeof(est_parts[0]))

/* The costs' columns only when a run was recorded with --costs: the
 * columns of other runs stay as they were, and a reader that looks
 * columns up by name finds them where they are. */
static bool has_columns(const struct diff *d, enum diff_metric m)
{
	return !diff_metrics[m].costs || diff_text__ncosts(d);
}

static void csv_header(const struct diff *d, FILE *f)
{
	fputs("function,object,group,status,fired,inconclusive", f);
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		if (!has_columns(d, (enum diff_metric)m))
			continue;
		for (size_t p = 0; p < NPARTS; p++)
			fprintf(f, ",%s_%s", diff_metrics[m].name, parts[p]);
		for (size_t p = 0; diff_metrics[m].kind == DIFF_KIND_TIME && p < NEST; p++)
			fprintf(f, ",%s_%s", diff_metrics[m].name, est_parts[p]);
	}
	fputs(",times,uncleared\r\n", f);
}

static void csv_num(double v, FILE *f)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, v == floor(v) && fabs(v) < 9e15 ? "%.0f" : "%.6g", v);
}

static void csv_rules(const struct diff *d, uint64_t bits, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	char list[1024] = "";

	for (size_t k = 0; k < o->nrules; k++)
		if (bits & (1ULL << k))
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 list[0] ? ";" : "", diff_rule__text(o->rules[k]));
	fputc(',', f);
	text_out__csv(f, list);
}

static void csv_metric(const struct diff_row *r, enum diff_metric m, FILE *f)
{
	const struct diff_spread *b = &r->v[DIFF_BASE][m], *h = &r->v[DIFF_HEAD][m];
	const struct diff_estimate *e = &r->est[m];
	const double v[NPARTS] = { b->median, h->median, r->change[m], r->change_pct[m], b->min,
				   b->max,    b->mad,	 h->min,       h->max,		 h->mad };
	const double ev[NEST] = { 100 * (e->ratio - 1), 100 * (e->lo - 1), 100 * (e->hi - 1),
				  e->p };

	for (size_t i = 0; i < NPARTS; i++)
		csv_num(v[i], f);
	for (size_t i = 0; diff_metrics[m].kind == DIFF_KIND_TIME && i < NEST; i++)
		csv_num(ev[i], f);
}

static void csv_row(const struct diff *d, const struct diff_row *r, FILE *f)
{
	text_out__csv(f, r->name);
	fputc(',', f);
	text_out__csv(f, r->object);
	fputc(',', f);
	if (r->group)
		text_out__csv(f, r->group);
	fprintf(f, ",%s", diff_status_names[r->status]);
	csv_rules(d, r->fired, f);
	csv_rules(d, r->unsure, f);
	for (int m = 0; m < DIFF_NMETRICS; m++)
		if (has_columns(d, (enum diff_metric)m))
			csv_metric(r, (enum diff_metric)m, f);
	/* which times: a column, so that any CSV reader keeps it with the rows */
	fprintf(f, ",%s", report__times_name(diff__opts(d)->times));
	csv_rules(d, r->uncleared, f);
	fputs("\r\n", f);
}

int diff__print_csv(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	csv_header(d, f);
	for (size_t i = 0; i < diff_text__shown(d, o->top); i++)
		csv_row(d, diff__row(d, i), f);
	return 0;
}
