// SPDX-License-Identifier: MIT
/* estimate_change.c: see estimate_change.h and, for why, judge_verdict.h and
 * docs/diff.md ("How time rules decide").  Everything happens on the
 * logarithms of the per-run times: a machine that is 5% slower multiplies
 * every time by 1.05, which is one added constant there, and the ratio
 * head / base of a function is one difference of means. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "diff/estimate_change.h"
#include "diff/estimate_moderate.h"
#include "diff/estimate_shift.h"

static size_t nall(const struct diff_judge *j)
{
	return diff_judge__nall(j);
}

/* The base runs' median totals, which the noise floors are shares of. */
static int run_total(const struct diff_judge *j, struct diff_summary *sum)
{
	size_t nb = j->nruns[DIFF_BASE];
	double *x = malloc((nb ? nb : 1) * sizeof(*x));

	if (!x)
		return -ENOMEM;
	for (int src = 0; src < DIFF_NSOURCES; src++) {
		for (size_t k = 0; k < nb; k++)
			x[k] = j->run_total[DIFF_BASE][k * DIFF_NSOURCES + src];
		sum->run_total_ns[src] = diff_stats__median(x, nb);
	}
	free(x);
	return 0;
}

static double geo_mean_base(const struct diff_judge *j, const struct diff_row *r,
			    enum diff_metric m)
{
	double s = 0;

	for (size_t k = 0; k < j->nruns[DIFF_BASE]; k++)
		s += log(r->runs[DIFF_BASE][m][k]);
	return exp(s / (double)j->nruns[DIFF_BASE]);
}

static double arith_mean(const struct diff_judge *j, const struct diff_row *r, enum diff_metric m)
{
	double s = 0;

	for (size_t k = 0; k < nall(j); k++)
		s += diff_judge__value(j, r, m, k);
	return s / (double)nall(j);
}

/* The pooled variance of one run within its side, of y (base runs first). */
static double pooled_var(const struct diff_judge *j, const double *y)
{
	size_t nb = j->nruns[DIFF_BASE], nh = j->nruns[DIFF_HEAD];

	return ((double)(nb - 1) * diff_stats__var(y, nb) +
		(double)(nh - 1) * diff_stats__var(y + nb, nh)) /
	       (double)(nb + nh - 2);
}

/* The ratio, its size and, with two runs a side, its run-to-run variance;
 * the test comes later, once all functions' variances are known. */
static void estimate(const struct diff_judge *j, size_t i, enum diff_metric m,
		     struct diff_shift *sh, double *y, double floor_ns)
{
	const struct diff_metric_def *def = &diff_metrics[m];
	struct diff_row *r = &j->rows[i];
	struct diff_estimate *e = &r->est[m];
	size_t nb = j->nruns[DIFF_BASE], n = nall(j);
	double *c = y + n, shift_var;

	*e = (struct diff_estimate){
		.ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .sd = NAN, .t = NAN, .df = NAN
	};
	if (r->status == DIFF_NEW || r->status == DIFF_GONE || !diff_judge__positive(j, r, m) ||
	    !diff_judge__positive(j, r, def->size_of))
		return;
	shift_var = diff_shift__for(sh, i, c);
	for (size_t k = 0; k < n; k++)
		y[k] = log(diff_judge__value(j, r, m, k)) - c[k];
	e->ratio = exp(diff_stats__mean(y + nb, j->nruns[DIFF_HEAD]) - diff_stats__mean(y, nb));
	e->base_ns = geo_mean_base(j, r, m);
	e->base_size_ns = geo_mean_base(j, r, def->size_of);
	e->change_ns = (e->ratio - 1) * e->base_ns;
	e->size_ns = fabs(e->ratio - 1) * e->base_size_ns;
	if (nb < 2 || j->nruns[DIFF_HEAD] < 2)
		return;
	e->sd = sqrt(pooled_var(j, y));
	e->shift_var = shift_var;
	/* A change that reaches the floor leaves the function at least half
	 * the floor on average: the others cannot fire, and are not counted
	 * among the tests corrected for. */
	e->tested = !r->hidden && arith_mean(j, r, def->size_of) >= floor_ns / 2;
}

/* Student's t on the log ratio: the run-to-run variance var (df1 degrees
 * of freedom) and the shift's (df2) make one error, with the degrees of
 * freedom of Welch-Satterthwaite. */
static void test(const struct diff_judge *j, struct diff_estimate *e, double var, double df1,
		 double df2)
{
	double v1 = var * (1.0 / (double)j->nruns[DIFF_BASE] + 1.0 / (double)j->nruns[DIFF_HEAD]);
	double v2 = e->shift_var, v = v1 + v2, diff = log(e->ratio), se = sqrt(v), tcrit;

	e->df = v > 0 ? v * v / (v1 * v1 / df1 + (v2 > 0 ? v2 * v2 / df2 : 0)) : df1;
	tcrit = diff_stats__t_isf((1 - j->o->confidence) / 2, e->df);
	e->sd = sqrt(var);
	if (se > 0) {
		e->t = diff / se;
		e->p = 2 * diff_stats__t_sf(fabs(e->t), e->df);
		e->lo = exp(diff - tcrit * se);
		e->hi = exp(diff + tcrit * se);
	} else { /* runs identical to the last digit: no noise to weigh */
		e->t = diff ? copysign(INFINITY, diff) : 0;
		e->p = diff ? 0 : 1;
		e->lo = e->hi = e->ratio;
	}
}

/* log of the function's size over all runs: what its noise follows. */
static double log_size(const struct diff_judge *j, const struct diff_row *r, enum diff_metric m)
{
	double s = 0;

	for (size_t k = 0; k < nall(j); k++)
		s += log(diff_judge__value(j, r, diff_metrics[m].size_of, k));
	return s / (double)nall(j);
}

/* Moderates the tested functions' variances together, then tests all. */
static int test_all(const struct diff_judge *j, enum diff_metric m, double shift_df)
{
	size_t room = j->nrows ? j->nrows : 1, g = 0;
	double *s2 = malloc(room * sizeof(*s2)), *x = malloc(room * sizeof(*x));
	double d = (double)(nall(j) - 2);
	struct diff_moderation mod;
	int rc = s2 && x ? 0 : -ENOMEM;

	for (size_t i = 0; i < j->nrows && !rc; i++) {
		const struct diff_estimate *e = &j->rows[i].est[m];

		if (e->tested && e->sd > 0) {
			s2[g] = e->sd * e->sd;
			x[g++] = log_size(j, &j->rows[i], m);
		}
	}
	if (!rc)
		rc = diff_moderate__fit(&mod, s2, x, g, d);
	for (size_t i = 0; i < j->nrows && !rc; i++) {
		struct diff_estimate *e = &j->rows[i].est[m];
		double var = isnan(e->sd) ? NAN : e->sd * e->sd;

		if (isnan(var))
			continue;
		if (e->tested)
			test(j, e, diff_moderate__var(&mod, var, log_size(j, &j->rows[i], m)),
			     d + mod.d0, shift_df);
		else
			test(j, e, var, d, shift_df);
	}
	free(s2);
	free(x);
	return rc;
}

/* Benjamini-Hochberg over the tested functions of metric m. */
static int correct(const struct diff_judge *j, enum diff_metric m, struct diff_summary *sum)
{
	size_t room = j->nrows ? j->nrows : 1, n = 0;
	double *p = malloc(room * sizeof(*p));
	bool *rej = malloc(room * sizeof(*rej));
	size_t *order = malloc(room * sizeof(*order)), *idx = malloc(room * sizeof(*idx));
	int rc = p && rej && order && idx ? 0 : -ENOMEM;

	for (size_t i = 0; i < j->nrows && !rc; i++) {
		if (!j->rows[i].est[m].tested)
			continue;
		p[n] = j->rows[i].est[m].p;
		idx[n++] = i;
	}
	if (!rc) {
		sum->tested[m] = n;
		sum->significant[m] = diff_stats__bh(p, n, 1 - j->o->confidence, rej, order);
		for (size_t k = 0; k < n; k++)
			j->rows[idx[k]].est[m].significant = rej[k];
	}
	free(p);
	free(rej);
	free(order);
	free(idx);
	return rc;
}

/* The estimates of time metric m, and its tests corrected together. */
static int metric_rows(const struct diff_judge *j, enum diff_metric m, double *y,
		       struct diff_summary *sum)
{
	enum diff_metric from = diff_metrics[m].shift_from;
	double floor_ns = j->o->noise_floor * sum->run_total_ns[diff_metric__basis(m)];
	struct diff_shift sh;
	int rc = diff_shift__measure(&sh, j, from);

	if (rc)
		return rc;
	sum->shift[from] = (struct diff_shift_summary){
		.measured = sh.measured,
		.functions = sh.nref,
		.ratio = diff_shift__overall(&sh),
		.var = sh.var,
	};
	for (size_t i = 0; i < j->nrows; i++)
		estimate(j, i, m, &sh, y, floor_ns);
	rc = test_all(j, m, sh.nref > 1 ? (double)(sh.nref - 1) : 1);
	diff_shift__free(&sh);
	return rc ? rc : correct(j, m, sum);
}

int diff_estimate__rows(const struct diff_judge *j, struct diff_summary *sum)
{
	size_t n = nall(j);
	double *y = malloc(2 * (n ? n : 1) * sizeof(*y));
	int rc = y ? run_total(j, sum) : -ENOMEM;

	for (int m = 0; m < DIFF_NMETRICS && !rc; m++)
		if (diff_metrics[m].kind == DIFF_KIND_TIME)
			rc = metric_rows(j, (enum diff_metric)m, y, sum);
	free(y);
	return rc;
}

/* Whether a change to ratio is significant one-sided at alpha with n runs
 * a side, at their degrees of freedom alone, if the noise of one run stays
 * as it is: the shift's error, measured with nruns, shrinks as the runs'
 * (it is a median of the functions' changes between the sides). */
static bool decides(const struct diff_estimate *e, double ratio, size_t nruns, size_t n,
		    double alpha)
{
	double se = sqrt((e->sd * e->sd * 2.0 + e->shift_var * (double)nruns) / (double)n);

	return fabs(log(ratio)) >= diff_stats__t_isf(alpha, 2.0 * (double)n - 2) * se;
}

/* The first n from nruns on that decides; 0 when not even
 * DIFF_MAX_RUNS_NEEDED would. */
static unsigned first_deciding(const struct diff_estimate *e, double ratio, size_t nruns,
			       double alpha)
{
	size_t lo = nruns < 2 ? 2 : nruns, hi = DIFF_MAX_RUNS_NEEDED;

	if (isnan(ratio) || !(ratio > 0) || ratio == 1 || isnan(e->sd) ||
	    !decides(e, ratio, nruns, hi, alpha))
		return 0;
	while (lo < hi) { /* deciding only gets easier with more runs */
		size_t mid = (lo + hi) / 2;

		if (decides(e, ratio, nruns, mid, alpha))
			hi = mid;
		else
			lo = mid + 1;
	}
	return (unsigned)lo;
}

unsigned diff_estimate__runs_needed(const struct diff_estimate *e, size_t nruns, double q,
				    size_t nsig, size_t ntested)
{
	/* The next function to become significant must reach rank nsig + 1. */
	double alpha = q * (double)(nsig + 1) / (double)(ntested > nsig ? ntested : nsig + 1);

	return first_deciding(e, e->ratio, nruns, alpha);
}

unsigned diff_estimate__runs_to_see(const struct diff_estimate *e, double ratio, size_t nruns,
				    double q, size_t ntested)
{
	/* alone among ntested, it must pass Benjamini-Hochberg's first rank */
	return first_deciding(e, ratio, nruns, q / (double)(ntested ? ntested : 1));
}
