// SPDX-License-Identifier: MIT
/* judge_verdict.c: the rules' verdicts on every function and call path,
 * and the verdict of the whole comparison (the policy is in
 * judge_verdict.h; the statistics in estimate_change.c). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/judge_rules.h"
#include "diff/judge_verdict.h"

enum call { NONE, FIRE, UNSURE };

/* A change that passes Benjamini-Hochberg at this many times the false
 * discovery rate (at most 50%) but not at the rate itself is suggestive:
 * inconclusive rather than a pass.  With no real change, at most that
 * rate of comparisons come out inconclusive on a rule; on zstd, 2 A/A
 * comparisons in 30 did, while at 5x three A/B comparisons in 30 that
 * estimated +24-26% past a 10% rule said pass (docs/diff.md). */
#define DIFF_HINT_FACTOR 10

struct ctx {
	const struct diff_judge *j;
	struct diff_summary *sum;
	double floor_ns[DIFF_NMETRICS]; /* by time metric: the noise floor */
	double q;
	size_t nunsure_time, nunsure_count;
	unsigned runs_needed;
	/* the time rule being judged: its functions' one-sided p-values */
	double *p;
	bool *pass, *hint; /* passes at q; at the looser DIFF_HINT_FACTOR x q */
	size_t *idx, *order, nfamily, npass;
};

/* ---- counts ---- */

/* Counts are exact: a change fires unless the runs of a side disagree
 * on this count and the two ranges overlap, when the workload itself
 * varies (calls, or what the calls spent: a run that took a lock
 * uncontended makes fewer system calls). */
static enum call count_call(const struct diff_rule *rule, double change, double pct,
			    const struct diff_spread *v)
{
	bool agree = v[DIFF_BASE].min == v[DIFF_BASE].max && v[DIFF_HEAD].min == v[DIFF_HEAD].max;
	bool apart = change > 0 ? v[DIFF_HEAD].min > v[DIFF_BASE].max
				: v[DIFF_HEAD].max < v[DIFF_BASE].min;

	if (!diff_rule__passes(rule, change, pct))
		return NONE;
	return agree || apart ? FIRE : UNSURE;
}

static enum call row_count(const struct diff_rule *rule, const struct diff_row *r,
			   enum diff_metric m)
{
	struct diff_spread v[2] = { r->v[DIFF_BASE][m], r->v[DIFF_HEAD][m] };

	return count_call(rule, r->change[m], r->change_pct[m], v);
}

/* ---- times ---- */

/* New or gone: the function's presence is exact, its size a median. */
static enum call presence(struct ctx *c, const struct diff_rule *rule, const struct diff_row *r,
			  enum diff_metric m)
{
	enum diff_metric size = diff_metrics[m].size_of;
	double there = fmax(r->v[DIFF_BASE][size].median, r->v[DIFF_HEAD][size].median);

	if (!diff_rule__passes(rule, r->change[m], r->change_pct[m]) || there < c->floor_ns[m] ||
	    fabs(r->change[m]) < (double)c->j->o->min_time_ns)
		return NONE;
	return FIRE;
}

/* No estimate (a run without the function): medians, and never a fire. */
static enum call untestable(struct ctx *c, const struct diff_rule *rule, const struct diff_row *r,
			    enum diff_metric m)
{
	enum diff_metric size = diff_metrics[m].size_of;

	if (!diff_rule__passes(rule, r->change[m], r->change_pct[m]) ||
	    fabs(r->change[size]) < c->floor_ns[m] ||
	    fabs(r->change[m]) < (double)c->j->o->min_time_ns)
		return NONE;
	return UNSURE;
}

/* The one-sided p-value of a rise (or fall) of r's metric m. */
static double p_dir(const struct diff_rule *rule, const struct diff_estimate *e)
{
	return diff_stats__t_sf(diff_rule__upward(rule) ? e->t : -e->t, e->df);
}

static enum call time_call(struct ctx *c, const struct diff_rule *rule, const struct diff_row *r,
			   enum diff_metric m, bool confirmed, bool hinted)
{
	const struct diff_estimate *e = &r->est[m];

	if (r->status == DIFF_NEW || r->status == DIFF_GONE)
		return presence(c, rule, r, m);
	if (isnan(e->ratio))
		return untestable(c, rule, r, m);
	if (!diff_rule__passes(rule, e->change_ns, 100 * (e->ratio - 1)) ||
	    e->size_ns < c->floor_ns[m] || fabs(e->change_ns) < (double)c->j->o->min_time_ns)
		return NONE;
	if (confirmed)
		return FIRE;
	/* the test could not run, or it sees a change that the number of
	 * functions tested lets through only at a looser rate */
	return !e->tested || isnan(e->t) || hinted ? UNSURE : NONE;
}

/* The runs of the larger side: where more runs per side start from. */
static size_t most_runs(const struct ctx *c)
{
	return c->j->nruns[0] > c->j->nruns[1] ? c->j->nruns[0] : c->j->nruns[1];
}

static void note_unsure_time(struct ctx *c, const struct diff_row *r, enum diff_metric m)
{
	unsigned need = diff_estimate__runs_needed(&r->est[m], most_runs(c), c->q, c->npass,
						   c->nfamily);

	c->nunsure_time++;
	if (need > c->runs_needed)
		c->runs_needed = need;
}

/* A function the rule neither fired nor hesitated on is cleared only when
 * the end of its change's interval in the rule's direction would not have
 * fired either: otherwise its runs are too noisy to rule out a change past
 * the threshold, and a pass says nothing of it (docs/diff.md, "What a
 * pass clears"). */
static bool uncleared(const struct ctx *c, const struct diff_rule *rule, const struct diff_row *r,
		      enum diff_metric m)
{
	const struct diff_estimate *e = &r->est[m];
	double bound = diff_rule__upward(rule) ? e->hi : e->lo;
	double change_ns = (bound - 1) * e->base_ns;

	if (!e->tested || isnan(bound)) /* new, gone, one run: no interval */
		return false;
	return diff_rule__passes(rule, change_ns, 100 * (bound - 1)) &&
	       fabs(bound - 1) * e->base_size_ns >= c->floor_ns[m] &&
	       fabs(change_ns) >= (double)c->j->o->min_time_ns;
}

static void note_uncleared(struct ctx *c, size_t k, const struct diff_row *r, enum diff_metric m)
{
	const struct diff_rule *rule = c->j->o->rules[k];
	struct diff_uncleared *u = &c->sum->uncleared[k];

	u->functions++;
	u->base_ns += r->est[m].base_ns;
	if (u->top && u->top->est[m].base_ns >= r->est[m].base_ns)
		return;
	u->top = r;
	u->runs_to_see = diff_estimate__runs_to_see(
		&r->est[m], diff_rule__threshold_ratio(rule, r->est[m].base_ns), most_runs(c), c->q,
		c->nfamily);
}

/* The rule's family: the tested functions its regex matches, their
 * one-sided p-values corrected together. */
static void family(struct ctx *c, const struct diff_rule *rule, enum diff_metric m)
{
	c->nfamily = 0;
	for (size_t i = 0; i < c->j->nrows; i++) {
		const struct diff_row *r = &c->j->rows[i];

		if (!r->est[m].tested || isnan(r->est[m].t) || !diff_rule__matches(rule, r->name))
			continue;
		c->p[c->nfamily] = p_dir(rule, &r->est[m]);
		c->idx[c->nfamily++] = i;
	}
	c->npass = diff_stats__bh(c->p, c->nfamily, c->q, c->pass, c->order);
	diff_stats__bh(c->p, c->nfamily, fmin(0.5, DIFF_HINT_FACTOR * c->q), c->hint, c->order);
}

/* Row i's place in the family, or nfamily. */
static size_t member(const struct ctx *c, size_t i)
{
	size_t k = 0;

	while (k < c->nfamily && c->idx[k] != i)
		k++;
	return k;
}

/* ---- rules ---- */

static void judge_rows(struct ctx *c, size_t k)
{
	const struct diff_rule *rule = c->j->o->rules[k];
	enum diff_metric m = (enum diff_metric)diff_rule__metric(rule);
	bool time = diff_metrics[m].kind == DIFF_KIND_TIME;

	if (time)
		family(c, rule, m);
	for (size_t i = 0; i < c->j->nrows; i++) {
		struct diff_row *r = &c->j->rows[i];
		size_t at = time ? member(c, i) : c->nfamily;
		enum call call;

		if (r->hidden || !diff_rule__matches(rule, r->name))
			continue;
		call = time ? time_call(c, rule, r, m, at < c->nfamily && c->pass[at],
					at < c->nfamily && c->hint[at])
			    : row_count(rule, r, m);
		if (call == FIRE)
			r->fired |= 1ULL << k;
		if (call == NONE && time && uncleared(c, rule, r, m)) {
			r->uncleared |= 1ULL << k;
			note_uncleared(c, k, r, m);
		}
		if (call != UNSURE)
			continue;
		r->unsure |= 1ULL << k;
		if (time)
			note_unsure_time(c, r, m);
		else
			c->nunsure_count++;
	}
}

static void judge_edges(struct ctx *c, size_t k)
{
	const struct diff_rule *rule = c->j->o->rules[k];
	int m = diff_rule__metric(rule) - DIFF_NMETRICS;
	char path[1024];

	for (size_t i = 0; i < c->j->nedges; i++) {
		struct diff_edge *e = &c->j->edges[i];
		enum call call;

		snprintf(path, sizeof(path), "%s -> %s", e->caller, e->callee);
		if (!diff_rule__matches(rule, path))
			continue;
		struct diff_spread v[2] = { e->v[DIFF_BASE][m], e->v[DIFF_HEAD][m] };

		call = count_call(rule, e->change[m], e->change_pct[m], v);
		if (call == FIRE)
			e->fired |= 1ULL << k;
		if (call == UNSURE) {
			e->unsure |= 1ULL << k;
			c->nunsure_count++;
		}
	}
}

/* A function whose calls are equal changed when a time moved
 * significantly by at least the floor. */
static void mark_changed(struct ctx *c)
{
	for (size_t i = 0; i < c->j->nrows; i++) {
		struct diff_row *r = &c->j->rows[i];

		for (int m = 0; m < DIFF_NMETRICS && r->status == DIFF_SAME; m++) {
			const struct diff_estimate *e = &r->est[m];

			if (e->significant && e->size_ns >= c->floor_ns[m] &&
			    fabs(e->change_ns) >= (double)c->j->o->min_time_ns)
				r->status = DIFF_CHANGED;
		}
	}
}

/* ---- the verdict ---- */

static int reason(struct diff_summary *s, const char *fmt, ...)
{
	char buf[1024], **v = realloc(s->reasons, (s->nreasons + 1) * sizeof(*v));
	va_list ap;

	if (!v)
		return -ENOMEM;
	s->reasons = v;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return (v[s->nreasons++] = strdup(buf)) ? 0 : -ENOMEM;
}

static bool time_rules(const struct diff_opts *o)
{
	for (size_t k = 0; k < o->nrules; k++) {
		int m = diff_rule__metric(o->rules[k]);

		if (!diff_metric__is_edge(m) && diff_metrics[m].kind == DIFF_KIND_TIME)
			return true;
	}
	return false;
}

static int lost_reason(struct ctx *c)
{
	const struct diff_judge *j = c->j;

	return reason(c->sum,
		      "%zu run%s lost events (%s%s): %s counts and times are incomplete; record "
		      "again (a larger --ring-size)",
		      j->nlost, j->nlost == 1 ? "" : "s", j->lost[0], j->nlost > 1 ? ", ..." : "",
		      j->nlost == 1 ? "its" : "their");
}

static int few_runs_reason(struct ctx *c)
{
	return reason(c->sum,
		      "time rules need at least 2 runs per side to measure the noise (base has "
		      "%zu, head %zu): record %zu more per side (5 in all are a good start)",
		      c->j->nruns[0], c->j->nruns[1],
		      5 - (c->j->nruns[0] < c->j->nruns[1] ? c->j->nruns[0] : c->j->nruns[1]));
}

static int unsure_reasons(struct ctx *c)
{
	int rc = 0;

	if (c->nunsure_count)
		rc = reason(c->sum,
			    "%zu count change%s within the spread of runs whose counts differ: "
			    "the workload is not deterministic",
			    c->nunsure_count, c->nunsure_count == 1 ? " lies" : "s lie");
	if (!rc && c->nunsure_time && c->runs_needed)
		rc = reason(c->sum,
			    "%zu time change%s past a threshold but not beyond the noise of %zu "
			    "and %zu runs: about %u runs per side would decide",
			    c->nunsure_time, c->nunsure_time == 1 ? " is" : "s are", c->j->nruns[0],
			    c->j->nruns[1], c->runs_needed);
	else if (!rc && c->nunsure_time)
		rc = reason(c->sum,
			    "%zu time change%s past a threshold that the runs cannot confirm "
			    "(too few runs, or a run without the function)",
			    c->nunsure_time, c->nunsure_time == 1 ? " is" : "s are");
	c->sum->runs_needed = c->runs_needed;
	return rc;
}

static int decide(struct ctx *c, bool fired, bool unsure)
{
	bool few = time_rules(c->j->o) && (c->j->nruns[0] < 2 || c->j->nruns[1] < 2);
	int rc = 0;

	c->sum->verdict = fired ? DIFF_FAIL : DIFF_PASS;
	if (c->j->nlost)
		rc = lost_reason(c);
	if (!rc && few && !fired)
		rc = few_runs_reason(c);
	if (!rc && unsure && !fired)
		rc = unsure_reasons(c);
	if (c->sum->nreasons && (c->j->nlost || !fired))
		c->sum->verdict = DIFF_INCONCLUSIVE;
	return rc;
}

static int ctx_alloc(struct ctx *c)
{
	size_t n = c->j->nrows ? c->j->nrows : 1;

	c->p = malloc(n * sizeof(*c->p));
	c->pass = malloc(n * sizeof(*c->pass));
	c->hint = malloc(n * sizeof(*c->hint));
	c->idx = malloc(n * sizeof(*c->idx));
	c->order = malloc(n * sizeof(*c->order));
	return c->p && c->pass && c->hint && c->idx && c->order ? 0 : -ENOMEM;
}

static void ctx_free(struct ctx *c)
{
	free(c->p);
	free(c->pass);
	free(c->hint);
	free(c->idx);
	free(c->order);
}

int diff_verdict__judge(const struct diff_judge *j, struct diff_summary *out)
{
	struct ctx c = { .j = j, .sum = out, .q = 1 - j->o->confidence };
	uint64_t fired = 0, unsure = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((rc = diff_estimate__rows(j, out)) || (rc = ctx_alloc(&c))) {
		ctx_free(&c);
		return rc;
	}
	for (int m = 0; m < DIFF_NMETRICS; m++)
		c.floor_ns[m] = j->o->noise_floor *
				out->run_total_ns[diff_metric__basis((enum diff_metric)m)];
	mark_changed(&c);
	for (size_t k = 0; k < j->o->nrules; k++) {
		if (diff_metric__is_edge(diff_rule__metric(j->o->rules[k])))
			judge_edges(&c, k);
		else
			judge_rows(&c, k);
	}
	for (size_t i = 0; i < j->nrows; i++) {
		fired |= j->rows[i].fired;
		unsure |= j->rows[i].unsure;
	}
	for (size_t i = 0; i < j->nedges; i++) {
		fired |= j->edges[i].fired;
		unsure |= j->edges[i].unsure;
	}
	ctx_free(&c);
	return decide(&c, fired != 0, unsure != 0);
}

void diff_verdict__free(struct diff_summary *s)
{
	for (size_t i = 0; i < s->nreasons; i++)
		free(s->reasons[i]);
	free(s->reasons);
	s->reasons = NULL;
	s->nreasons = 0;
}
