// SPDX-License-Identifier: MIT
/* print_table.c: the terminal table of `sledtrace diff`: one row per
 * function, the call paths whose counts changed, and the verdict with its
 * evidence.  The column groups are diff_text__columns' (on-CPU ones only
 * when a run has scheduler switches); on a terminal, groups are dropped
 * from the right and names shortened to fit; redirected, nothing is cut. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "diff/judge_rules.h"
#include "diff/print.h"
#include "diff/print_text.h"

#define NCOLS (1 + 3 * DIFF_NMETRICS) /* mark, then base, head, change per metric */
#define CELL 48

/* The metric groups shown, in order. */
struct grid {
	enum diff_metric m[DIFF_NMETRICS];
	int ngroups, ncols; /* ncols = 1 + 3 x ngroups */
};

static void grid_of(const struct diff *d, struct grid *g)
{
	g->ngroups = diff_text__columns(d, g->m);
	g->ncols = 1 + 3 * g->ngroups;
}

static enum diff_metric col_metric(const struct grid *g, int c)
{
	return g->m[(c - 1) / 3];
}

static void col_head(const struct grid *g, int c, char *buf)
{
	if (!c)
		buf[0] = '\0';
	else if ((c - 1) % 3)
		strcpy(buf, (c - 1) % 3 == 1 ? "head" : "change");
	else
		snprintf(buf, CELL, "%s base", diff_metrics[col_metric(g, c)].title);
}

/* The row's label, with the share of probes where its times are mostly. */
static const char *table_label(const struct diff_row *r, char *buf, size_t n)
{
	double m = diff_row__probe_mostly(r);
	size_t len = strlen(diff_row__label(r, buf, n));

	if (m > 0 && len < n)
		snprintf(buf + len, n - len, " ~%.0f%% probes", 100 * m);
	return buf;
}

static void cell_value(char *buf, const struct diff *d, const struct diff_row *r, enum diff_side s,
		       enum diff_metric m)
{
	const struct diff_spread *v = &r->v[s][m];

	if (r->unprobed && diff_metrics[m].kind == DIFF_KIND_TIME) {
		snprintf(buf, CELL, "unprobed");
		return;
	}
	diff_fmt_value(buf, CELL, m, v->median);
	if (diff_metrics[m].kind == DIFF_KIND_TIME && diff__nruns(d, s) > 1 && v->median)
		snprintf(buf + strlen(buf), CELL - strlen(buf), " ±%.0f%%",
			 100 * v->mad / v->median);
}

static void render(const struct diff *d, const struct grid *g, const struct diff_row *r,
		   char cells[NCOLS][CELL])
{
	static const char marks[4] = { ' ', '~', '+', '-' };

	snprintf(cells[0], CELL, "%c", r->fired ? '!' : r->unsure ? '?' : marks[r->status]);
	for (int c = 1; c < g->ncols; c++) {
		enum diff_metric m = col_metric(g, c);

		switch ((c - 1) % 3) {
		case 0:
			cell_value(cells[c], d, r, DIFF_BASE, m);
			break;
		case 1:
			cell_value(cells[c], d, r, DIFF_HEAD, m);
			break;
		default:
			if (r->unprobed && diff_metrics[m].kind == DIFF_KIND_TIME)
				snprintf(cells[c], CELL, "-");
			else
				diff_fmt_change(cells[c], CELL, r, m);
		}
	}
}

/* Widths of the columns; returns how many metric groups fit (all .. 1:
 * the first always stays) and the room left for names. */
static int layout(const struct diff *d, const struct grid *g, const struct diff_print_opts *o,
		  size_t w[NCOLS], size_t *name_w)
{
	char cells[NCOLS][CELL], label[4096];
	size_t used, longest = strlen("FUNCTION");
	int groups;

	for (int c = 0; c < g->ncols; c++) {
		col_head(g, c, cells[c]);
		w[c] = strlen(cells[c]);
	}
	for (size_t i = 0; i < diff_text__shown(d, o->top); i++) {
		const struct diff_row *r = diff__row(d, i);
		size_t n = strlen(table_label(r, label, sizeof(label)));

		render(d, g, r, cells);
		for (int c = 0; c < g->ncols; c++)
			if (strlen(cells[c]) > w[c])
				w[c] = strlen(cells[c]);
		longest = n > longest ? n : longest;
	}
	for (groups = g->ngroups;; groups--) {
		used = 0;
		for (int c = 0; c < 1 + 3 * groups; c++)
			used += w[c] + 2;
		if (!o->width || used + longest <= o->width || groups == 1)
			break;
	}
	*name_w = !o->width || used + longest <= o->width ? longest
		  : o->width > used + 20		  ? o->width - used
							  : 20;
	return groups;
}

static void print_name(const char *label, size_t name_w, FILE *f)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", label);
	if (strlen(buf) > name_w && name_w > 3)
		strcpy(buf + name_w - 3, "...");
	fprintf(f, "%s\n", buf);
}

static void print_rows(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	char cells[NCOLS][CELL], label[4096];
	size_t w[NCOLS], name_w, shown = diff_text__shown(d, o->top);
	struct grid g;
	int ncols;

	grid_of(d, &g);
	ncols = 1 + 3 * layout(d, &g, o, w, &name_w);
	for (int c = 0; c < ncols; c++) {
		col_head(&g, c, cells[c]);
		fprintf(f, "%*s  ", (int)w[c], cells[c]);
	}
	fprintf(f, "FUNCTION\n");
	for (size_t i = 0; i < shown; i++) {
		render(d, &g, diff__row(d, i), cells);
		for (int c = 0; c < ncols; c++)
			fprintf(f, "%*s  ", (int)w[c], cells[c]);
		print_name(table_label(diff__row(d, i), label, sizeof(label)), name_w, f);
	}
	if (shown < diff__nrows(d))
		fprintf(f, "(%zu more functions; --top=0 shows all)\n", diff__nrows(d) - shown);
}

/* Only the paths whose counts changed: the others repeat the functions. */
static void print_edges(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	char b[32], h[32], c[64], label[4096];
	size_t n = 0;

	for (size_t i = 0; i < diff__nedges(d); i++) {
		const struct diff_edge *e = diff__edge(d, i);

		if (e->status == DIFF_SAME && !e->fired && !e->unsure)
			continue;
		if (o->top && n == o->top)
			break;
		if (!n++)
			fprintf(f, "\n%12s  %12s  %18s  CALL PATH\n", "CALLS base", "head",
				"change");
		fprintf(f, "%12s  %12s  %18s  ",
			diff_fmt_value(b, sizeof(b), DIFF_EDGE_CALLS,
				       e->v[DIFF_BASE][DIFF_EDGE_M_CALLS].median),
			diff_fmt_value(h, sizeof(h), DIFF_EDGE_CALLS,
				       e->v[DIFF_HEAD][DIFF_EDGE_M_CALLS].median),
			diff_fmt_edge_change(c, sizeof(c), e, DIFF_EDGE_M_CALLS));
		print_name(diff_edge__label(e, label, sizeof(label)), o->width ? o->width : 4096,
			   f);
	}
}

struct wrap {
	FILE *f;
	unsigned width;
	const struct diff *d;
};

/* prefix + text, cut at spaces to fit the terminal; continuation lines
 * are indented by the prefix's width plus two. */
static void wrapped(const struct wrap *w, const char *prefix, const char *text)
{
	size_t room, indent = strlen(prefix) + 2, at = strlen(prefix);

	fputs(prefix, w->f);
	while (*text) {
		size_t n = strlen(text), cut = n;

		room = w->width > at + 20 ? w->width - at : SIZE_MAX;
		if (n > room) {
			for (cut = room; cut > 0 && text[cut] != ' '; cut--)
				;
			cut = cut ? cut : room;
		}
		fprintf(w->f, "%.*s\n", (int)cut, text);
		text += cut;
		text += strspn(text, " ");
		if (*text)
			fprintf(w->f, "%*s", (int)indent, "");
		at = indent;
	}
}

static void note_line(void *ctx, const char *note)
{
	wrapped(ctx, "note: ", note);
}

static void finding_line(void *ctx, const struct diff_finding *fd)
{
	const struct wrap *w = ctx;
	char label[4096], ev[1024], line[6144];

	snprintf(line, sizeof(line), "%s %s on %s: %s",
		 diff_rule__text(diff__opts(w->d)->rules[fd->rule]),
		 fd->fired ? "fired" : "inconclusive",
		 diff_finding__label(fd, label, sizeof(label)),
		 diff_finding__evidence(w->d, fd, ev, sizeof(ev)));
	wrapped(w, "  ", line);
}

static int popcount64(uint64_t v)
{
	int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static void print_verdict(const struct diff *d, const struct diff_print_opts *po, FILE *f)
{
	const struct diff_summary *s = diff__summary(d);
	const struct diff_opts *o = diff__opts(d);
	struct wrap w = { f, po->width, d };
	size_t nuncleared = diff_text__uncleared(d);
	char floor[128], head[512];

	snprintf(head, sizeof(head),
		 "base: %zu run%s, head: %zu run%s, %zu functions; times: %s; %s",
		 diff__nruns(d, DIFF_BASE), diff__nruns(d, DIFF_BASE) == 1 ? "" : "s",
		 diff__nruns(d, DIFF_HEAD), diff__nruns(d, DIFF_HEAD) == 1 ? "" : "s",
		 diff__nrows(d), report__times_name(o->times),
		 diff_text__floor(d, floor, sizeof(floor)));
	fputc('\n', f);
	wrapped(&w, "", head);
	diff__notes(d, note_line, &w);
	if (!o->nrules)
		return;
	if (s->verdict == DIFF_PASS && nuncleared)
		fprintf(f,
			"PASS: no rule fired; %zu function%s too noisy to clear (the note above)\n",
			nuncleared, nuncleared == 1 ? " is" : "s are");
	else if (s->verdict == DIFF_PASS)
		fprintf(f, "PASS: no rule fired\n");
	else if (s->verdict == DIFF_FAIL)
		fprintf(f, "FAIL: %d of %zu rules fired\n", popcount64(diff__fired(d)), o->nrules);
	else
		fprintf(f, "INCONCLUSIVE: the runs cannot decide\n");
	for (size_t i = 0; i < s->nreasons; i++)
		wrapped(&w, "  ", s->reasons[i]);
	diff__findings(d, true, true, finding_line, &w);
}

int diff__print_table(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	print_rows(d, o, f);
	print_edges(d, o, f);
	print_verdict(d, o, f);
	return 0;
}
