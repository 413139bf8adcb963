// SPDX-License-Identifier: MIT
/* print_notes.c: the notes every format of `sledtrace diff` shows
 * (diff__notes, print_text.h): what a reader should know before trusting
 * the numbers, each a sentence of its own. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "diff/estimate_change.h"
#include "diff/estimate_shift.h"
#include "diff/judge_rules.h"
#include "diff/print_text.h"

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

/* bench --max-runs: how many looks, and the confidence each had. */
static void note_looks(const struct diff *d, void (*fn)(void *, const char *), void *ctx)
{
	const struct diff_opts *o = diff__opts(d);
	size_t n = diff__nruns(d, DIFF_BASE);
	double conf = 100 * o->confidence;
	char buf[512];

	if (!o->first_look_runs)
		return;
	if (n > o->first_look_runs)
		snprintf(buf, sizeof(buf),
			 "bench --max-runs looked twice: %u run%s a side could not decide (or a "
			 "pass could not clear every function), so it recorded %zu; each look "
			 "judged at %g%% confidence, half the error rate "
			 "asked for, so that the second look adds no false alarms",
			 o->first_look_runs, o->first_look_runs == 1 ? "" : "s", n, conf);
	else if (diff__summary(d)->verdict == DIFF_INCONCLUSIVE)
		snprintf(buf, sizeof(buf),
			 "bench --max-runs recorded no more than %zu runs a side: by their noise, "
			 "more runs would not decide (not even 99), or cannot (judged at %g%% "
			 "confidence, half the error rate asked for, the other half kept for a "
			 "second look)",
			 n, conf);
	else
		snprintf(buf, sizeof(buf),
			 "bench --max-runs decided at its first look, at %g%% confidence: half "
			 "the error rate asked for, the other half kept for a second look",
			 conf);
	fn(ctx, buf);
}

static bool cpu_rules(const struct diff_opts *o)
{
	for (size_t k = 0; k < o->nrules; k++) {
		int m = diff_rule__metric(o->rules[k]);

		if (!diff_metric__is_edge(m) && diff_metrics[m].on_cpu)
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
	size_t off = 0;
	char buf[512];

	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < diff__nruns(d, (enum diff_side)s); k++)
			off += diff__stats(d, (enum diff_side)s, k)->no_sched != 0;

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
			 "%s%s (%.1f%% of the run): the %.4g%% interval of its "
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
	note_looks(d, fn, ctx);
	note_probes(d, fn, ctx);
	note_shift(d, fn, ctx);
	note_counts(d, fn, ctx);
	note_cost_counts(d, fn, ctx);
	note_uncleared(d, fn, ctx);
}
