// SPDX-License-Identifier: MIT
/* print_markdown.c: `sledtrace diff --format=markdown`, written for a
 * GitHub job summary or a merge-request note: one verdict line and why,
 * the rules that fired (or could not decide) with their evidence, the call
 * paths whose counts changed, a table of the changes that matter, and the
 * other functions folded into a <details> block so that a large program
 * stays readable. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/judge_rules.h"
#include "diff/print.h"
#include "diff/print_text.h"

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

	if (r->unprobed && diff_metrics[m].kind == DIFF_KIND_TIME) {
		fputs("unprobed", f);
		return;
	}
	fputs(diff_fmt_value(a, sizeof(a), m, v->median), f);
	if (diff__nruns(d, s) > 1 && (diff_metrics[m].kind == DIFF_KIND_TIME || v->min != v->max))
		fprintf(f, " (%s–%s)", diff_fmt_value(a, sizeof(a), m, v->min),
			diff_fmt_value(b, sizeof(b), m, v->max));
}

static const char *status_word(const struct diff_row *r)
{
	return r->fired			? "**fired**"
	       : r->unsure		? "inconclusive"
	       : r->status == DIFF_SAME ? ""
					: diff_status_names[r->status];
}

static void md_header(const struct diff *d, FILE *f)
{
	const char *g = diff__opts(d)->group == DIFF_BY_THREAD	  ? " thread |"
			: diff__opts(d)->group == DIFF_BY_PROCESS ? " process |"
								  : "";
	enum diff_metric cols[DIFF_NMETRICS];
	int ncols = diff_text__columns(d, cols);

	fprintf(f, "| | function |%s", g);
	for (int c = 0; c < ncols; c++) {
		const char *n = diff_metrics[cols[c]].name;

		fprintf(f, " %s base | %s head | Δ %s |", n, n, n);
	}
	fprintf(f, "\n|---|---|%s", *g ? "---|" : "");
	for (int c = 0; c < ncols; c++)
		fputs("---:|---:|---:|", f);
	fputc('\n', f);
}

static void md_row(const struct diff *d, const struct diff_row *r, FILE *f)
{
	enum diff_metric cols[DIFF_NMETRICS];
	int ncols = diff_text__columns(d, cols);
	char c[64];

	fprintf(f, "| %s | ", status_word(r));
	md_name(r, f);
	if (diff_row__probe_mostly(r) > 0)
		fprintf(f, " ~%.0f%% probes", 100 * diff_row__probe_mostly(r));
	if (r->group) {
		fputs(" | ", f);
		md_code(r->group, f);
	}
	for (int k = 0; k < ncols; k++) {
		enum diff_metric m = cols[k];

		fputs(" | ", f);
		md_value(d, r, DIFF_BASE, m, f);
		fputs(" | ", f);
		md_value(d, r, DIFF_HEAD, m, f);
		fprintf(f, " | %s",
			r->unprobed && diff_metrics[m].kind == DIFF_KIND_TIME
				? "-"
				: diff_fmt_change(c, sizeof(c), r, m));
	}
	fputs(" |\n", f);
}

struct md_ctx {
	const struct diff *d;
	FILE *f;
};

static void md_finding(void *ctx, const struct diff_finding *fd)
{
	struct md_ctx *m = ctx;
	char ev[1024];

	fputs("| ", m->f);
	md_code(diff_rule__text(diff__opts(m->d)->rules[fd->rule]), m->f);
	fputs(" | ", m->f);
	if (fd->row) {
		md_name(fd->row, m->f);
		if (fd->row->group) {
			fputs(" on ", m->f);
			md_code(fd->row->group, m->f);
		}
	} else {
		md_code(fd->edge->caller, m->f);
		fputs(" → ", m->f);
		md_code(fd->edge->callee, m->f);
	}
	fprintf(m->f, " | %s |\n", diff_finding__evidence(m->d, fd, ev, sizeof(ev)));
}

static void md_findings(const struct diff *d, bool fired, FILE *f)
{
	struct md_ctx m = { d, f };

	fprintf(f, "#### %s\n\n| rule | on | evidence |\n|---|---|---|\n",
		fired ? "Rules that fired" : "Rules that could not decide");
	diff__findings(d, fired, !fired, md_finding, &m);
	fputc('\n', f);
}

static void md_edges(const struct diff *d, size_t top, FILE *f)
{
	char b[32], h[32], c[64];
	size_t n = 0;

	for (size_t i = 0; i < diff__nedges(d) && (!top || n < top); i++) {
		const struct diff_edge *e = diff__edge(d, i);

		if (e->status == DIFF_SAME && !e->fired && !e->unsure)
			continue;
		if (!n++)
			fputs("#### Call paths whose counts changed\n\n| caller | callee | calls "
			      "base | calls head | Δ calls |\n|---|---|---:|---:|---:|\n",
			      f);
		fputs("| ", f);
		md_code(e->caller, f);
		fputs(" | ", f);
		md_code(e->callee, f);
		fprintf(f, " | %s | %s | %s |\n",
			diff_fmt_value(b, sizeof(b), DIFF_EDGE_CALLS,
				       e->v[DIFF_BASE][DIFF_EDGE_M_CALLS].median),
			diff_fmt_value(h, sizeof(h), DIFF_EDGE_CALLS,
				       e->v[DIFF_HEAD][DIFF_EDGE_M_CALLS].median),
			diff_fmt_edge_change(c, sizeof(c), e, DIFF_EDGE_M_CALLS));
	}
	if (n)
		fputc('\n', f);
}

static int popcount64(uint64_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static void md_heading(const struct diff *d, size_t nmatter, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	const struct diff_summary *s = diff__summary(d);
	int fired = popcount64(diff__fired(d));
	size_t nu = diff_text__uncleared(d);
	const char *rules = o->nrules == 1 ? "rule" : "rules";

	if (!o->nrules && s->verdict == DIFF_PASS)
		fprintf(f, "### sledtrace diff: %zu of %zu functions changed\n\n", nmatter,
			diff__nrows(d));
	else if (s->verdict == DIFF_FAIL)
		fprintf(f, "### ❌ sledtrace diff: %d of %zu rules fired\n\n", fired, o->nrules);
	else if (s->verdict == DIFF_INCONCLUSIVE)
		fprintf(f, "### ⚠️ sledtrace diff: inconclusive (%zu %s)\n\n", o->nrules,
			rules);
	else if (nu)
		fprintf(f,
			"### ✅ sledtrace diff: no rule fired (%zu %s; %zu function%s too noisy to "
			"clear)\n\n",
			o->nrules, rules, nu, nu == 1 ? "" : "s");
	else
		fprintf(f, "### ✅ sledtrace diff: no rule fired (%zu %s)\n\n", o->nrules, rules);
	for (size_t i = 0; i < s->nreasons; i++)
		fprintf(f, "- %s\n%s", s->reasons[i], i + 1 == s->nreasons ? "\n" : "");
}

static void md_verdict(const struct diff *d, size_t nmatter, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	char t[32], floor[128];

	md_heading(d, nmatter, f);
	fprintf(f, "base: %zu run%s, head: %zu run%s; %zu functions compared, %zu changed",
		diff__nruns(d, DIFF_BASE), diff__nruns(d, DIFF_BASE) == 1 ? "" : "s",
		diff__nruns(d, DIFF_HEAD), diff__nruns(d, DIFF_HEAD) == 1 ? "" : "s",
		diff__nrows(d), nmatter);
	fprintf(f, "; times: %s; %s", report__times_name(o->times),
		diff_text__floor(d, floor, sizeof(floor)));
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
		md_findings(d, true, f);
	if (diff__unsure(d))
		md_findings(d, false, f);
	md_edges(d, o->top, f);
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
