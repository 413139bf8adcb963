// SPDX-License-Identifier: MIT
/* print_text.c: see print_text.h. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/estimate_change.h"
#include "diff/estimate_shift.h"
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
	if (metric != DIFF_EDGE_CALLS && diff_metrics[metric].kind == DIFF_KIND_TIME)
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

const char *diff_fmt_edge_change(char *buf, size_t n, const struct diff_edge *e)
{
	return fmt_change(buf, n, DIFF_EDGE_CALLS, e->status, e->change, e->change_pct);
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

static const uint64_t *no_sched_of(const struct trace_stats *st)
{
	return &st->no_sched;
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

/* ---- notes ---- */

static void note_counts(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
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
				 diff__nruns(d, (enum diff_side)s), diff_side_names[s],
				 r->v[s][DIFF_CALLS].min, r->v[s][DIFF_CALLS].max);
			fn(ctx, buf);
		}
	}
}

/* What the calls spent varies with the workload as the calls do, and
 * more often: a lock taken uncontended in one run makes no system call.
 * One note per cost count, naming the first functions, so that a run of
 * busy threads does not bury the other notes. */
static void note_cost_counts(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	char buf[1024], label[512];

	for (int m = 0; m < DIFF_NMETRICS; m++) {
		size_t n = 0, len;

		if (!diff_metrics[m].costs || !diff_text__shows(d, (enum diff_metric)m))
			continue;
		len = (size_t)snprintf(buf, sizeof(buf), "%s differ between the runs of a side (",
				       diff_metrics[m].name);
		for (size_t i = 0; i < diff__nrows(d); i++) {
			const struct diff_row *r = diff__row(d, i);

			for (int s = 0; s < 2; s++) {
				const struct diff_spread *v = &r->v[s][m];

				if (v->min == v->max || ++n > 3 || len >= sizeof(buf))
					continue;
				len += (size_t)snprintf(
					buf + len, sizeof(buf) - len, "%s%s in %s: %.0f to %.0f",
					n > 1 ? "; " : "", diff_row__label(r, label, sizeof(label)),
					diff_side_names[s], v->min, v->max);
			}
		}
		if (!n)
			continue;
		if (n > 3 && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "; %zu more", n - 3);
		if (len < sizeof(buf))
			snprintf(buf + len, sizeof(buf) - len,
				 "): the workload is not deterministic");
		fn(ctx, buf);
	}
}

/* Runs recorded without --costs count nothing: against runs with it,
 * every cost column compares 0 with what was spent. */
static void note_no_costs(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	size_t n = diff__nruns(d, DIFF_BASE) + diff__nruns(d, DIFF_HEAD);
	size_t with = diff_text__ncosts(d);
	char buf[512];

	if (!with || with == n)
		return;
	snprintf(buf, sizeof(buf),
		 "%zu of the %zu runs were recorded without --costs: their cost counts show 0 "
		 "but were never counted, and the cost columns compare unlike figures (record "
		 "every run alike)",
		 n - with, n);
	fn(ctx, buf);
}

static void note_losses(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	char buf[1024];

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < diff__nruns(d, (enum diff_side)s); i++) {
			const struct trace_stats *st = diff__stats(d, (enum diff_side)s, i);
			uint64_t lost = trace_stats__ring_lost(st) + st->max_depth_dropped +
					st->short_dropped + st->unmatched_exits + st->coverage_gaps;

			if (!lost)
				continue;
			snprintf(buf, sizeof(buf),
				 "%s: %" PRIu64 " dropped, %" PRIu64 " unmatched, %" PRIu64
				 " filtered (max depth, min duration) events, %" PRIu64
				 " coverage gaps: its counts are not complete",
				 diff__path(d, (enum diff_side)s, i), trace_stats__ring_lost(st),
				 st->unmatched_exits, st->max_depth_dropped + st->short_dropped,
				 st->coverage_gaps);
			fn(ctx, buf);
		}
	}
}

/* The shift of self time, and of on-CPU self time where the on-CPU
 * columns show: on a loaded machine the first carries the waits for a
 * CPU, the second does not. */
static void note_shift(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	static const struct {
		enum diff_metric m;
		const char *what;
	} kinds[] = { { DIFF_SELF, "times" }, { DIFF_CPU_SELF, "on-CPU times" } };
	char buf[512];

	if (diff__nruns(d, DIFF_BASE) + diff__nruns(d, DIFF_HEAD) < 2)
		return;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct diff_shift_summary *s = &diff__summary(d)->shift[kinds[i].m];

		if (diff_metrics[kinds[i].m].on_cpu &&
		    (!diff_text__nsched(d) ||
		     (!s->measured && !diff__summary(d)->shift[DIFF_SELF].measured)))
			continue; /* no on-CPU columns, or the note on times says it all */
		if (!s->measured)
			snprintf(buf, sizeof(buf),
				 "too few functions (%zu) hold %.1f%% of every run to measure the "
				 "shift all functions share: %s are compared as measured",
				 s->functions, 100 * DIFF_SHIFT_MIN_SHARE, kinds[i].what);
		else
			snprintf(buf, sizeof(buf),
				 "shared shift%s: every function of head ran %+.1f%% against base "
				 "(the median of %zu functions), taken out before %s are compared; "
				 "a slower machine and code that slows everything alike look the "
				 "same",
				 diff_metrics[kinds[i].m].on_cpu ? " on the CPU" : "",
				 100 * (s->ratio - 1), s->functions, kinds[i].what);
		fn(ctx, buf);
	}
}

/* Rows whose times are mostly the probes' own cost. */
static void note_probes(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	size_t n = 0;
	char buf[512];

	for (size_t i = 0; i < diff__nrows(d); i++)
		n += diff_row__probe_mostly(diff__row(d, i)) > 0;
	if (!n)
		return;
	snprintf(buf, sizeof(buf),
		 "the times of %zu functions (marked ~NN%% probes) are mostly the probes' own "
		 "cost: their changes are the probes' as much as the program's; runs recorded "
		 "with --budget (bench --budget=5%%) have real times",
		 n);
	fn(ctx, buf);
}

/* bench --budget: where the times come from, and what has none. */
static void note_budget(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	const struct trace_stats *st;
	size_t n = 0;
	char buf[512];

	if (!diff__opts(d)->calls_elsewhere || !diff__nruns(d, DIFF_BASE))
		return;
	for (size_t i = 0; i < diff__nrows(d); i++)
		n += diff__row(d, i)->unprobed;
	st = diff__stats(d, DIFF_BASE, 0);
	snprintf(buf, sizeof(buf),
		 "calls and call paths from one run a side with every function probed; times "
		 "from runs with a budget of %g%% of the program's time, which left %zu of these "
		 "functions unprobed: their time is in their callers' self time",
		 (double)st->budget_ppm / 1e4, n);
	fn(ctx, buf);
}

static bool cpu_rules(const struct diff_opts *o)
{
	for (size_t k = 0; k < o->nrules; k++) {
		int m = diff_rule__metric(o->rules[k]);

		if (m != DIFF_EDGE_CALLS && diff_metrics[m].on_cpu)
			return true;
	}
	return false;
}

/* On-CPU times of a run without scheduler switches are its wall times:
 * right when its threads never left a CPU (a run at real-time priority
 * that never blocks has none), not when it was recorded without them,
 * which its stats say (no_sched).  Only the second is worth a note. */
static void note_sched(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	size_t n = diff__nruns(d, DIFF_BASE) + diff__nruns(d, DIFF_HEAD);
	size_t off = nruns_with(d, no_sched_of);
	char buf[512];

	if (off && off < n)
		snprintf(buf, sizeof(buf),
			 "%zu of the %zu runs were recorded with --no-sched: their on-CPU times "
			 "are their wall times, and cpu and cpu-self compare unlike figures "
			 "(record every run alike)",
			 off, n);
	else if (off && cpu_rules(diff__opts(d)))
		snprintf(buf, sizeof(buf),
			 "every run was recorded with --no-sched: on-CPU times are wall times, and "
			 "the cpu and cpu-self rules judge total and self time");
	else
		return;
	fn(ctx, buf);
}

static void note_objects(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	char buf[1024];

	for (int s = 0; s < 2; s++) {
		size_t n = diff__nobjects_only(d, (enum diff_side)s), len;

		if (!n)
			continue;
		len = (size_t)snprintf(buf, sizeof(buf), "objects only in %s:", diff_side_names[s]);
		for (size_t i = 0; i < n && len < sizeof(buf); i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, " %s",
						diff__object_only(d, (enum diff_side)s, i));
		fn(ctx, buf);
	}
}

size_t diff_text__uncleared(const struct diff *d)
{
	size_t n = 0;

	for (size_t i = 0; i < diff__nrows(d); i++)
		n += diff__row(d, i)->uncleared != 0;
	return n;
}

/* Where a pass is blind: the functions each time rule could not clear,
 * and what it would take to see the threshold in the largest of them. */
static void note_uncleared(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	const struct diff_opts *o = diff__opts(d);
	const struct diff_summary *s = diff__summary(d);
	char buf[1408], label[512], whose[1024], see[160];

	for (size_t k = 0; k < o->nrules; k++) {
		const struct diff_uncleared *u = &s->uncleared[k];
		const struct diff_rule *rule = o->rules[k];
		enum diff_metric m = (enum diff_metric)diff_rule__metric(rule);
		const struct diff_estimate *e;
		double total, bound, at;

		if (!u->functions)
			continue;
		e = &u->top->est[m];
		total = s->run_total_ns[diff_metric__basis(m)];
		bound = diff_rule__upward(rule) ? e->hi : e->lo;
		at = diff_rule__threshold_ratio(rule, e->base_ns);
		diff_row__label(u->top, label, sizeof(label));
		if (isnan(at))
			snprintf(see, sizeof(see),
				 "no number of runs would see the threshold in it");
		else if (u->runs_to_see)
			snprintf(see, sizeof(see), "about %u runs per side would see %+.3g%% in it",
				 u->runs_to_see, 100 * (at - 1));
		else
			snprintf(see, sizeof(see),
				 "more than %d runs per side would be needed to see "
				 "%+.3g%% in it",
				 DIFF_MAX_RUNS_NEEDED, 100 * (at - 1));
		snprintf(whose, sizeof(whose),
			 "%s%s (%.1f%% of the run): the %.0f%% interval of its "
			 "change reaches %+.1f%%; %s",
			 u->functions > 1 ? "the largest, " : "", label, 100 * e->base_ns / total,
			 100 * o->confidence, 100 * (bound - 1), see);
		if (u->functions == 1)
			snprintf(buf, sizeof(buf),
				 "%s: a pass does not clear %s: its runs are too "
				 "noisy to rule out a change past the threshold",
				 diff_rule__text(rule), whose);
		else
			snprintf(
				buf, sizeof(buf),
				"%s: a pass does not clear %zu functions holding "
				"%.1f%% of the run, whose runs are too noisy to rule out a change past "
				"the threshold; %s",
				diff_rule__text(rule), u->functions, 100 * u->base_ns / total,
				whose);
		fn(ctx, buf);
	}
}

void diff__notes(const struct diff *d, void (*fn)(void *ctx, const char *note), void *ctx)
{
	note_losses(d, fn, ctx);
	note_objects(d, fn, ctx);
	note_sched(d, fn, ctx);
	note_no_costs(d, fn, ctx);
	note_budget(d, fn, ctx);
	note_probes(d, fn, ctx);
	note_shift(d, fn, ctx);
	note_counts(d, fn, ctx);
	note_cost_counts(d, fn, ctx);
	note_uncleared(d, fn, ctx);
}

/* ---- findings ---- */

static void rows_of_rule(const struct diff *d, size_t k, bool fired,
			 void (*fn)(void *, const struct diff_finding *), void *ctx)
{
	uint64_t bit = 1ULL << k;
	struct diff_finding f = { .rule = k, .fired = fired };

	if (diff_rule__metric(diff__opts(d)->rules[k]) == DIFF_EDGE_CALLS) {
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
		" (%+.1f%% %s, %.0f%% interval %+.1f%% to %+.1f%%, p = %.2g, %zu "
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
		snprintf(buf, n, "calls %s -> %s, %s",
			 diff_fmt_value(b, sizeof(b), m, f->edge->v[DIFF_BASE].median),
			 diff_fmt_value(h, sizeof(h), m, f->edge->v[DIFF_HEAD].median),
			 diff_fmt_edge_change(c, sizeof(c), f->edge));
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
