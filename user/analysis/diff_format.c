// SPDX-License-Identifier: MIT
/* diff_format.c: the terminal table of `sledtrace diff`, the helpers every
 * format shares (numbers, changes, notes, the list of fired rules) and the
 * dispatch to the markdown, JSON and CSV writers. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/diff_format.h"
#include "analysis/diff_rules.h"

static const char *fmt_ns(char *buf, size_t n, double ns)
{
	static const struct {
		const char *unit;
		double scale;
	} u[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };
	double a = fabs(ns);

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (a >= u[i].scale) {
			double v = ns / u[i].scale, av = fabs(v);

			snprintf(buf, n, "%.*f%s", av < 10 ? 3 : av < 100 ? 2 : 1, v, u[i].unit);
			return buf;
		}
	}
	snprintf(buf, n, "%.0fns", ns);
	return buf;
}

const char *diff_fmt_value(char *buf, size_t n, enum diff_metric m, double v)
{
	if (m != DIFF_CALLS)
		return fmt_ns(buf, n, v);
	snprintf(buf, n, v == floor(v) ? "%.0f" : "%.1f", v);
	return buf;
}

const char *diff_fmt_change(char *buf, size_t n, const struct diff_row *r, enum diff_metric m)
{
	char v[32];

	if (r->status == DIFF_NEW)
		return snprintf(buf, n, "new"), buf;
	if (r->status == DIFF_GONE)
		return snprintf(buf, n, "gone"), buf;
	if (!r->change[m])
		return snprintf(buf, n, "0"), buf;
	diff_fmt_value(v, sizeof(v), m, fabs(r->change[m]));
	if (isinf(r->change_pct[m]))
		snprintf(buf, n, "%c%s", r->change[m] > 0 ? '+' : '-', v);
	else
		snprintf(buf, n, "%c%s (%+.*f%%)", r->change[m] > 0 ? '+' : '-', v,
			 fabs(r->change_pct[m]) < 100 ? 1 : 0, r->change_pct[m]);
	return buf;
}

const char *diff_row__label(const struct diff_row *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s%s%s", r->name, r->shared_name ? " (" : "",
		 r->shared_name ? r->object : "", r->shared_name ? ")" : "", r->group ? " [" : "",
		 r->group ? r->group : "", r->group ? "]" : "");
	return buf;
}

/* ---- notes ---- */

static void note_counts(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	static const char *const side_names[2] = { "base", "head" };
	char buf[1024], label[512];

	for (size_t i = 0; i < diff__nrows(d); i++) {
		const struct diff_row *r = diff__row(d, i);

		for (int s = 0; s < 2; s++) {
			if (r->calls_agree[s])
				continue;
			snprintf(buf, sizeof(buf),
				 "calls of %s differ between the %zu runs of %s (%.0f to %.0f): "
				 "the workload is not deterministic",
				 diff_row__label(r, label, sizeof(label)),
				 diff__nruns(d, (enum diff_side)s), side_names[s],
				 r->v[s][DIFF_CALLS].min, r->v[s][DIFF_CALLS].max);
			fn(ctx, buf);
		}
	}
}

static void note_losses(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	char buf[1024];

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < diff__nruns(d, (enum diff_side)s); i++) {
			const struct trace_stats *st = diff__stats(d, (enum diff_side)s, i);
			uint64_t lost = st->ringbuf_drops + st->max_depth_dropped +
					st->short_dropped + st->unmatched_exits;

			if (!lost)
				continue;
			snprintf(buf, sizeof(buf),
				 "%s: %" PRIu64 " dropped, %" PRIu64 " unmatched, %" PRIu64
				 " filtered (max depth, min duration) events: its counts are "
				 "not complete",
				 diff__path(d, (enum diff_side)s, i), st->ringbuf_drops,
				 st->unmatched_exits, st->max_depth_dropped + st->short_dropped);
			fn(ctx, buf);
		}
	}
}

void diff__notes(const struct diff *d, void (*fn)(void *ctx, const char *note), void *ctx)
{
	note_losses(d, fn, ctx);
	note_counts(d, fn, ctx);
}

void diff__print_fired(const struct diff *d, const char *prefix, FILE *f)
{
	const struct diff_opts *o = diff__opts(d);
	char b[32], h[32], c[64], label[4096];

	for (size_t k = 0; k < o->nrules; k++) {
		enum diff_metric m = diff_rule__metric(o->rules[k]);

		for (size_t i = 0; i < diff__nrows(d); i++) {
			const struct diff_row *r = diff__row(d, i);

			if (!(r->fired & (1ULL << k)))
				continue;
			fprintf(f, "%s%s fired on %s: %s %s -> %s, %s\n", prefix,
				diff_rule__text(o->rules[k]),
				diff_row__label(r, label, sizeof(label)), diff_metric_names[m],
				diff_fmt_value(b, sizeof(b), m, r->v[DIFF_BASE][m].median),
				diff_fmt_value(h, sizeof(h), m, r->v[DIFF_HEAD][m].median),
				diff_fmt_change(c, sizeof(c), r, m));
		}
	}
}

/* ---- table ---- */

#define NCOLS 13 /* mark, 4 metrics x (base, head, change) */
#define CELL 48

/* Column groups, dropped from the right when the terminal is narrow. */
static const int col_metric[NCOLS] = { -1, 0, 0, 0, 2, 2, 2, 1, 1, 1, 3, 3, 3 };
static const char *const col_head[NCOLS] = {
	"",	      "CALLS base", "head",   "change",	  "SELF base", "head",	 "change",
	"TOTAL base", "head",	    "change", "AVG base", "head",      "change",
};

static void cell_value(char *buf, const struct diff *d, const struct diff_row *r, enum diff_side s,
		       enum diff_metric m)
{
	const struct diff_spread *v = &r->v[s][m];

	diff_fmt_value(buf, CELL, m, v->median);
	if (m != DIFF_CALLS && diff__nruns(d, s) > 1 && v->median)
		snprintf(buf + strlen(buf), CELL - strlen(buf), " ±%.0f%%",
			 100 * v->mad / v->median);
}

static void render(const struct diff *d, const struct diff_row *r, char cells[NCOLS][CELL])
{
	static const char marks[4] = { ' ', '~', '+', '-' };

	snprintf(cells[0], CELL, "%c", r->fired ? '!' : marks[r->status]);
	for (int c = 1; c < NCOLS; c++) {
		enum diff_metric m = (enum diff_metric)col_metric[c];

		switch ((c - 1) % 3) {
		case 0:
			cell_value(cells[c], d, r, DIFF_BASE, m);
			break;
		case 1:
			cell_value(cells[c], d, r, DIFF_HEAD, m);
			break;
		default:
			diff_fmt_change(cells[c], CELL, r, m);
		}
	}
}

static size_t nshown(const struct diff *d, const struct diff_print_opts *o)
{
	return o->top && o->top < diff__nrows(d) ? o->top : diff__nrows(d);
}

/* Widths of the columns; returns how many metric groups fit (4 .. 1:
 * calls always stay) and the room left for names. */
static int layout(const struct diff *d, const struct diff_print_opts *o, size_t w[NCOLS],
		  size_t *name_w)
{
	char cells[NCOLS][CELL], label[4096];
	size_t used, longest = strlen("FUNCTION");
	int groups;

	for (int c = 0; c < NCOLS; c++)
		w[c] = strlen(col_head[c]);
	for (size_t i = 0; i < nshown(d, o); i++) {
		const struct diff_row *r = diff__row(d, i);
		size_t n = strlen(diff_row__label(r, label, sizeof(label)));

		render(d, r, cells);
		for (int c = 0; c < NCOLS; c++)
			if (strlen(cells[c]) > w[c])
				w[c] = strlen(cells[c]);
		longest = n > longest ? n : longest;
	}
	for (groups = 4;; groups--) {
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

static void print_name(const struct diff_row *r, size_t name_w, FILE *f)
{
	char buf[4096];

	diff_row__label(r, buf, sizeof(buf));
	if (strlen(buf) > name_w && name_w > 3)
		strcpy(buf + name_w - 3, "...");
	fprintf(f, "%s\n", buf);
}

static void print_table(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	char cells[NCOLS][CELL];
	size_t w[NCOLS], name_w;
	int ncols = 1 + 3 * layout(d, o, w, &name_w);

	for (int c = 0; c < ncols; c++)
		fprintf(f, "%*s  ", (int)w[c], col_head[c]);
	fprintf(f, "FUNCTION\n");
	for (size_t i = 0; i < nshown(d, o); i++) {
		render(d, diff__row(d, i), cells);
		for (int c = 0; c < ncols; c++)
			fprintf(f, "%*s  ", (int)w[c], cells[c]);
		print_name(diff__row(d, i), name_w, f);
	}
	if (nshown(d, o) < diff__nrows(d))
		fprintf(f, "(%zu more functions; --top=0 shows all)\n",
			diff__nrows(d) - nshown(d, o));
}

static void note_line(void *ctx, const char *note)
{
	fprintf(ctx, "note: %s\n", note);
}

static void print_verdict(const struct diff *d, FILE *f)
{
	uint64_t fired = diff__fired(d);
	int n = 0;

	for (; fired; fired &= fired - 1)
		n++;
	fprintf(f, "\nbase: %zu run%s, head: %zu run%s, %zu functions; times: %s\n",
		diff__nruns(d, DIFF_BASE), diff__nruns(d, DIFF_BASE) == 1 ? "" : "s",
		diff__nruns(d, DIFF_HEAD), diff__nruns(d, DIFF_HEAD) == 1 ? "" : "s",
		diff__nrows(d), report__times_name(diff__opts(d)->times));
	diff__notes(d, note_line, f);
	if (!diff__opts(d)->nrules)
		return;
	if (!n) {
		fprintf(f, "PASS: no rule fired\n");
		return;
	}
	fprintf(f, "FAIL: %d of %zu rules fired\n", n, diff__opts(d)->nrules);
	diff__print_fired(d, "  ", f);
}

int diff__print(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	int rc = 0;

	switch (o->format) {
	case DIFF_FORMAT_TABLE:
		print_table(d, o, f);
		print_verdict(d, f);
		break;
	case DIFF_FORMAT_MARKDOWN:
		rc = diff__print_markdown(d, o, f);
		break;
	case DIFF_FORMAT_JSON:
		rc = diff__print_json(d, o, f);
		break;
	case DIFF_FORMAT_CSV:
		rc = diff__print_csv(d, o, f);
		break;
	}
	return rc || fflush(f) || ferror(f) ? -EIO : 0;
}
