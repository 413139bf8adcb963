// SPDX-License-Identifier: MIT
/* diff_markdown.c: `sledtrace diff --format=markdown`, written for a
 * GitHub job summary: one verdict line, the rules that fired, a table of
 * the changes that matter, and the other functions folded into a
 * <details> block so that a large program stays readable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff_format.h"
#include "analysis/diff_rules.h"

/* A name in a code span inside a table cell: '|' must be escaped even
 * there; a backtick in the name needs a longer fence. */
static void md_code(const char *s, FILE *f)
{
	const char *fence = strchr(s, '`') ? "`` " : "`";

	fputs(fence, f);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s != '\n' && *s != '\r')
			fputc(*s, f);
	}
	fputs(strchr(fence, ' ') ? " ``" : "`", f);
}

static void md_name(const struct diff_row *r, FILE *f)
{
	md_code(r->name, f);
	if (r->shared_name) {
		fputs(" (", f);
		md_code(r->object, f);
		fputc(')', f);
	}
}

static void md_value(const struct diff *d, const struct diff_row *r, enum diff_side s,
		     enum diff_metric m, FILE *f)
{
	const struct diff_spread *v = &r->v[s][m];
	char a[32], b[32];

	fputs(diff_fmt_value(a, sizeof(a), m, v->median), f);
	if (diff__nruns(d, s) > 1 && (m != DIFF_CALLS || v->min != v->max))
		fprintf(f, " (%s–%s)", diff_fmt_value(a, sizeof(a), m, v->min),
			diff_fmt_value(b, sizeof(b), m, v->max));
}

static const char *status_word(const struct diff_row *r)
{
	return r->fired ? "**fired**" : r->status == DIFF_SAME ? "" : diff_status_names[r->status];
}

static void md_header(const struct diff *d, FILE *f)
{
	const char *g = diff__opts(d)->group == DIFF_BY_THREAD	  ? " thread |"
			: diff__opts(d)->group == DIFF_BY_PROCESS ? " process |"
								  : "";

	fprintf(f,
		"| | function |%s calls base | calls head | Δ calls | self base | self head "
		"| Δ self | total base | total head | Δ total | avg base | avg head | Δ avg |\n",
		g);
	fprintf(f, "|---|---|%s---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
		*g ? "---|" : "");
}

static void md_row(const struct diff *d, const struct diff_row *r, FILE *f)
{
	char c[64];

	fprintf(f, "| %s | ", status_word(r));
	md_name(r, f);
	if (r->group) {
		fputs(" | ", f);
		md_code(r->group, f);
	}
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		static const int order[DIFF_NMETRICS] = { DIFF_CALLS, DIFF_SELF, DIFF_TOTAL,
							  DIFF_AVG };
		enum diff_metric mm = (enum diff_metric)order[m];

		fputs(" | ", f);
		md_value(d, r, DIFF_BASE, mm, f);
		fputs(" | ", f);
		md_value(d, r, DIFF_HEAD, mm, f);
		fprintf(f, " | %s", diff_fmt_change(c, sizeof(c), r, mm));
	}
	fputs(" |\n", f);
}

static void md_fired(const struct diff *d, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	char b[32], h[32], c[64];

	fprintf(f, "| rule | function | base | head | change |\n|---|---|---:|---:|---:|\n");
	for (size_t k = 0; k < o->nrules; k++) {
		enum diff_metric m = diff_rule__metric(o->rules[k]);

		for (size_t i = 0; i < diff__nrows(d); i++) {
			const struct diff_row *r = diff__row(d, i);

			if (!(r->fired & (1ULL << k)))
				continue;
			fputs("| ", f);
			md_code(diff_rule__text(o->rules[k]), f);
			fputs(" | ", f);
			md_name(r, f);
			if (r->group) {
				fputs(" on ", f);
				md_code(r->group, f);
			}
			fprintf(f, " | %s | %s | %s |\n",
				diff_fmt_value(b, sizeof(b), m, r->v[DIFF_BASE][m].median),
				diff_fmt_value(h, sizeof(h), m, r->v[DIFF_HEAD][m].median),
				diff_fmt_change(c, sizeof(c), r, m));
		}
	}
	fputc('\n', f);
}

static int popcount64(uint64_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static void md_verdict(const struct diff *d, size_t nmatter, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	int fired = popcount64(diff__fired(d));
	char t[32];

	if (!o->nrules)
		fprintf(f, "### sledtrace diff: %zu of %zu functions changed\n\n", nmatter,
			diff__nrows(d));
	else if (fired)
		fprintf(f, "### ❌ sledtrace diff: %d of %zu rules fired\n\n", fired, o->nrules);
	else
		fprintf(f, "### ✅ sledtrace diff: no rule fired (%zu rules)\n\n", o->nrules);
	fprintf(f, "base: %zu run%s, head: %zu run%s; %zu functions compared, %zu changed",
		diff__nruns(d, DIFF_BASE), diff__nruns(d, DIFF_BASE) == 1 ? "" : "s",
		diff__nruns(d, DIFF_HEAD), diff__nruns(d, DIFF_HEAD) == 1 ? "" : "s",
		diff__nrows(d), nmatter);
	fprintf(f, "; times: %s", report__times_name(o->times));
	if (o->min_time_ns)
		fprintf(f, "; time changes under %s ignored",
			diff_fmt_value(t, sizeof(t), DIFF_TOTAL, (double)o->min_time_ns));
	fputs(".\n\n", f);
}

static void md_note(void *ctx, const char *note)
{
	fputs("> **Note:** ", ctx);
	md_code(note, ctx);
	fputs("\n>\n", ctx);
}

int diff__print_markdown(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	size_t n = o->top && o->top < diff__nrows(d) ? o->top : diff__nrows(d), nmatter = 0;
	size_t rest = 0;

	for (size_t i = 0; i < diff__nrows(d); i++)
		nmatter += diff_row__matters(diff__row(d, i));
	md_verdict(d, nmatter, f);
	diff__notes(d, md_note, f);
	if (diff__fired(d))
		md_fired(d, f);
	if (nmatter && n) {
		fputs("#### Changes that matter\n\n", f);
		md_header(d, f);
		for (size_t i = 0; i < n; i++)
			if (diff_row__matters(diff__row(d, i)))
				md_row(d, diff__row(d, i), f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < n; i++)
		rest += !diff_row__matters(diff__row(d, i));
	if (rest || diff__nrows(d) > n) {
		fprintf(f, "<details><summary>%zu other functions</summary>\n\n", rest);
		if (rest) {
			md_header(d, f);
			for (size_t i = 0; i < n; i++)
				if (!diff_row__matters(diff__row(d, i)))
					md_row(d, diff__row(d, i), f);
		}
		if (diff__nrows(d) > n)
			fprintf(f, "\n%zu more functions not shown (--top=%zu).\n",
				diff__nrows(d) - n, o->top);
		fputs("\n</details>\n", f);
	}
	return 0;
}
