// SPDX-License-Identifier: MIT
/* print_text.c: see print_text.h; the notes are in print_notes.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/estimate_change.h"
#include "diff/judge_rules.h"
#include "diff/print_text.h"

const char *const diff_side_names[2] = { "base", "head" };
const char *const diff_group_names[3] = { "function", "thread", "process" };

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

const char *diff_fmt_value(char *buf, size_t n, int metric, double v)
{
	if (!diff_metric__is_edge(metric) && diff_metrics[metric].kind == DIFF_KIND_TIME)
		return fmt_ns(buf, n, v);
	snprintf(buf, n, v == floor(v) ? "%.0f" : "%.1f", v);
	return buf;
}

static const char *fmt_change(char *buf, size_t n, int metric, enum diff_status st, double change,
			      double pct)
{
	char v[32];

	if (st == DIFF_NEW || st == DIFF_GONE)
		return snprintf(buf, n, "%s", diff_status_names[st]), buf;
	if (!change)
		return snprintf(buf, n, "0"), buf;
	diff_fmt_value(v, sizeof(v), metric, fabs(change));
	if (isinf(pct))
		snprintf(buf, n, "%c%s", change > 0 ? '+' : '-', v);
	else
		snprintf(buf, n, "%c%s (%+.*f%%)", change > 0 ? '+' : '-', v,
			 fabs(pct) < 100 ? 1 : 0, pct);
	return buf;
}

const char *diff_fmt_change(char *buf, size_t n, const struct diff_row *r, enum diff_metric m)
{
	return fmt_change(buf, n, m, r->status, r->change[m], r->change_pct[m]);
}

const char *diff_fmt_edge_change(char *buf, size_t n, const struct diff_edge *e,
				 enum diff_edge_metric m)
{
	return fmt_change(buf, n, DIFF_NMETRICS + (int)m, e->status, e->change[m],
			  e->change_pct[m]);
}

const char *diff_row__label(const struct diff_row *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%s%s%s%s%s", r->name, r->shared_name ? " (" : "",
		 r->shared_name ? r->object : "", r->shared_name ? ")" : "", r->group ? " [" : "",
		 r->group ? r->group : "", r->group ? "]" : "");
	return buf;
}

double diff_row__probe_mostly(const struct diff_row *r)
{
	double m = 0;

	for (int s = 0; s < 2; s++)
		if (!isnan(r->probe_share[s]) && r->probe_share[s] > m)
			m = r->probe_share[s];
	return !r->unprobed && m >= DIFF_PROBE_MOSTLY ? m : 0;
}

const char *diff_edge__label(const struct diff_edge *e, char *buf, size_t n)
{
	snprintf(buf, n, "%s -> %s", e->caller, e->callee);
	return buf;
}

size_t diff_text__shown(const struct diff *d, size_t top)
{
	return top && top < diff__nrows(d) ? top : diff__nrows(d);
}

/* Runs of both sides whose stats have a nonzero field. */
static size_t nruns_with(const struct diff *d, const uint64_t *(*field)(const struct trace_stats *))
{
	size_t n = 0;

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < diff__nruns(d, (enum diff_side)s); k++)
			n += *field(diff__stats(d, (enum diff_side)s, k)) != 0;
	return n;
}

static const uint64_t *switches_of(const struct trace_stats *st)
{
	return &st->switches;
}

static const uint64_t *costs_of(const struct trace_stats *st)
{
	return &st->costs;
}

size_t diff_text__nsched(const struct diff *d)
{
	return nruns_with(d, switches_of);
}

size_t diff_text__ncosts(const struct diff *d)
{
	return nruns_with(d, costs_of);
}

bool diff_text__shows(const struct diff *d, enum diff_metric m)
{
	return (!diff_metrics[m].on_cpu || diff_text__nsched(d)) &&
	       (!diff_metrics[m].costs || diff_text__ncosts(d));
}

int diff_text__columns(const struct diff *d, enum diff_metric cols[DIFF_NMETRICS])
{
	int n = 0;

	for (int c = 0; c < DIFF_NMETRICS; c++)
		for (int m = 0; m < DIFF_NMETRICS; m++)
			if (diff_metrics[m].column == c && diff_text__shows(d, (enum diff_metric)m))
				cols[n++] = (enum diff_metric)m;
	return n;
}

const char *diff_text__floor(const struct diff *d, char *buf, size_t n)
{
	const struct diff_summary *s = diff__summary(d);
	double share = diff__opts(d)->noise_floor;
	char wall[32], cpu[32];

	diff_fmt_value(wall, sizeof(wall), DIFF_SELF, share * s->run_total_ns[DIFF_SRC_SELF]);
	diff_fmt_value(cpu, sizeof(cpu), DIFF_CPU_SELF, share * s->run_total_ns[DIFF_SRC_CPU_SELF]);
	if (diff_text__nsched(d))
		snprintf(buf, n, "noise floor %s, on-CPU %s (%g%% of a run)", wall, cpu,
			 100 * share);
	else
		snprintf(buf, n, "noise floor %s (%g%% of a run)", wall, 100 * share);
	return buf;
}

/* ---- findings ---- */

static void rows_of_rule(const struct diff *d, size_t k, bool fired,
			 void (*fn)(void *, const struct diff_finding *), void *ctx)
{
	uint64_t bit = 1ULL << k;
	struct diff_finding f = { .rule = k, .fired = fired };

	if (diff_metric__is_edge(diff_rule__metric(diff__opts(d)->rules[k]))) {
		for (size_t i = 0; i < diff__nedges(d); i++) {
			f.edge = diff__edge(d, i);
			if ((fired ? f.edge->fired : f.edge->unsure) & bit)
				fn(ctx, &f);
		}
		return;
	}
	for (size_t i = 0; i < diff__nrows(d); i++) {
		f.row = diff__row(d, i);
		if ((fired ? f.row->fired : f.row->unsure) & bit)
			fn(ctx, &f);
	}
}

void diff__findings(const struct diff *d, bool fired, bool unsure,
		    void (*fn)(void *ctx, const struct diff_finding *f), void *ctx)
{
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0 ? !fired : !unsure)
			continue;
		for (size_t k = 0; k < diff__opts(d)->nrules; k++)
			rows_of_rule(d, k, pass == 0, fn, ctx);
	}
}

const char *diff_finding__label(const struct diff_finding *f, char *buf, size_t n)
{
	return f->edge ? diff_edge__label(f->edge, buf, n) : diff_row__label(f->row, buf, n);
}

static size_t estimate_text(const struct diff *d, const struct diff_finding *f, enum diff_metric m,
			    char *buf, size_t n)
{
	const struct diff_estimate *e = &f->row->est[m];
	const struct diff_summary *s = diff__summary(d);
	bool shifted = s->shift[diff_metrics[m].shift_from].measured;
	double conf = diff__opts(d)->confidence;
	size_t most = diff__nruns(d, DIFF_BASE) > diff__nruns(d, DIFF_HEAD)
			      ? diff__nruns(d, DIFF_BASE)
			      : diff__nruns(d, DIFF_HEAD);
	char decide[64] = "";
	unsigned need;

	if (isnan(e->ratio))
		return (size_t)snprintf(buf, n, " (medians: a run lacks the function)");
	if (isnan(e->p))
		return (size_t)snprintf(buf, n, " (%+.1f%% %s; one run a side)",
					100 * (e->ratio - 1),
					shifted ? "after the shared shift" : "by geometric means");
	need = f->fired ? 0
			: diff_estimate__runs_needed(e, most, 1 - conf, s->significant[m],
						     s->tested[m]);
	if (need)
		snprintf(decide, sizeof(decide), "; about %u runs per side would decide", need);
	return (size_t)snprintf(
		buf, n,
		" (%+.1f%% %s, %.4g%% interval %+.1f%% to %+.1f%%, p = %.2g, %zu "
		"functions tested%s)",
		100 * (e->ratio - 1), shifted ? "after the shared shift" : "by geometric means",
		100 * conf, 100 * (e->lo - 1), 100 * (e->hi - 1), e->p, s->tested[m], decide);
}

const char *diff_finding__evidence(const struct diff *d, const struct diff_finding *f, char *buf,
				   size_t n)
{
	int m = diff_rule__metric(diff__opts(d)->rules[f->rule]);
	char b[32], h[32], c[64];
	size_t len;

	if (f->edge) {
		enum diff_edge_metric em = (enum diff_edge_metric)(m - DIFF_NMETRICS);

		snprintf(buf, n, "%s %s -> %s, %s", diff_edge_metrics[em].name,
			 diff_fmt_value(b, sizeof(b), m, f->edge->v[DIFF_BASE][em].median),
			 diff_fmt_value(h, sizeof(h), m, f->edge->v[DIFF_HEAD][em].median),
			 diff_fmt_edge_change(c, sizeof(c), f->edge, em));
		return buf;
	}
	len = (size_t)snprintf(buf, n, "%s %s -> %s, %s", diff_metrics[m].name,
			       diff_fmt_value(b, sizeof(b), m, f->row->v[DIFF_BASE][m].median),
			       diff_fmt_value(h, sizeof(h), m, f->row->v[DIFF_HEAD][m].median),
			       diff_fmt_change(c, sizeof(c), f->row, (enum diff_metric)m));
	if (diff_metrics[m].kind == DIFF_KIND_TIME && f->row->status != DIFF_NEW &&
	    f->row->status != DIFF_GONE && len < n)
		estimate_text(d, f, (enum diff_metric)m, buf + len, n - len);
	return buf;
}

struct print_ctx {
	const struct diff *d;
	const char *prefix;
	FILE *f;
};

static void print_one(void *ctx, const struct diff_finding *f)
{
	struct print_ctx *p = ctx;
	char label[4096], ev[1024];

	fprintf(p->f, "%s%s %s on %s: %s\n", p->prefix,
		diff_rule__text(diff__opts(p->d)->rules[f->rule]),
		f->fired ? "fired" : "inconclusive", diff_finding__label(f, label, sizeof(label)),
		diff_finding__evidence(p->d, f, ev, sizeof(ev)));
}

void diff__print_findings(const struct diff *d, bool fired, bool unsure, const char *prefix,
			  FILE *f)
{
	struct print_ctx p = { d, prefix, f };

	diff__findings(d, fired, unsure, print_one, &p);
}
