// SPDX-License-Identifier: MIT
/* estimate_shift.c: see estimate_shift.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/estimate_moderate.h"
#include "diff/estimate_shift.h"

/* Function r's share of run k's total of m's basis. */
static double share_of(const struct diff_judge *j, const struct diff_row *r, enum diff_metric m,
		       size_t k)
{
	return diff_judge__value(j, r, m, k) / diff_judge__total(j, k, diff_metric__basis(m));
}

static bool reference(const struct diff_judge *j, const struct diff_row *r, enum diff_metric m)
{
	if (!diff_judge__positive(j, r, m))
		return false;
	for (size_t k = 0; k < diff_judge__nall(j); k++)
		if (!(share_of(j, r, m, k) >= DIFF_SHIFT_MIN_SHARE))
			return false;
	return true;
}

static void deviations(struct diff_shift *s, const struct diff_judge *j, enum diff_metric m)
{
	for (size_t i = 0; i < j->nrows; i++) {
		double *w = s->within + s->nref * s->n, mean[2], share = 0;

		if (!reference(j, &j->rows[i], m))
			continue;
		for (size_t k = 0; k < s->n; k++) {
			w[k] = log(diff_judge__value(j, &j->rows[i], m, k));
			share += share_of(j, &j->rows[i], m, k);
		}
		s->weight[s->nref] = sqrt(share / (double)s->n);
		mean[0] = diff_stats__mean(w, s->nb);
		mean[1] = diff_stats__mean(w + s->nb, s->n - s->nb);
		s->lsize[s->nref] = diff_stats__mean(w, s->n);
		for (size_t k = 0; k < s->n; k++)
			w[k] -= mean[k >= s->nb];
		s->between[s->nref] = mean[1] - mean[0];
		s->ref_of[i] = ++s->nref;
	}
}

/* The weighted median of v[0..nref) without v[skip] (skip >= nref: none),
 * weights w. */
static double median_without(struct diff_shift *s, const double *v, size_t stride, size_t skip,
			     const double *w)
{
	size_t n = 0;

	for (size_t f = 0; f < s->nref; f++) {
		if (f == skip)
			continue;
		s->scratch[n] = v[f * stride];
		s->wscratch[n++] = w[f];
	}
	return diff_stats__wmedian(s->scratch, s->wscratch, n, s->order);
}

/* Each function's own noise from run to run once the runs' shift is out:
 * its deviations less the others' median (so that it does not explain
 * itself away), per degree of freedom (n runs less the two sides' means),
 * moderated like the tests' variances (estimate_moderate.h): from ten runs
 * one function's noise is a rough guess, and functions alike in noise
 * must not weigh unlike by chance.  The floor keeps a function whose runs
 * agree to the last digit from taking every weight. */
#define DIFF_SHIFT_NOISE_FLOOR 1e-6 /* a variance: 0.1% */

static int measure_noise(struct diff_shift *s)
{
	struct diff_moderation mod;
	double d = (double)(s->n - 2);
	int rc;

	for (size_t f = 0; f < s->nref; f++) {
		double ss = 0;

		for (size_t k = 0; k < s->n; k++) {
			double r = s->within[f * s->n + k] -
				   median_without(s, s->within + k, s->n, f, s->weight);

			ss += r * r;
		}
		s->noise[f] = fmax(ss / d, DIFF_SHIFT_NOISE_FLOOR);
	}
	if ((rc = diff_moderate__fit(&mod, s->noise, s->lsize, s->nref, d)))
		return rc;
	for (size_t f = 0; f < s->nref; f++) {
		s->noise[f] = diff_moderate__var(&mod, s->noise[f], s->lsize[f]);
		s->weight[f] = 1 / s->noise[f];
	}
	return 0;
}

/* No function decides the shift alone: a weight is at most half of all the
 * others' together, so a function that holds most of the run (and may be
 * the one that changed) is a third of the median's weight at most.  Only
 * one weight can exceed that. */
static void cap_weights(struct diff_shift *s)
{
	double total = 0;
	size_t top = 0;

	for (size_t f = 0; f < s->nref; f++) {
		total += s->weight[f];
		if (s->weight[f] > s->weight[top])
			top = f;
	}
	if (s->nref && s->weight[top] > (total - s->weight[top]) / 2)
		s->weight[top] = (total - s->weight[top]) / 2;
}

/* The median's variance: pi/2 times a weighted mean's, sum w^2 v / (sum w)^2
 * with v each function's variance of its change, from its own noise, all
 * scaled by how far the functions' changes really scatter beyond that (the
 * MAD of their standardized distances from delta, never below 1: functions
 * differ in how they follow the machine), without function skip (skip >=
 * nref: none).  Like the median, the spread a function is corrected with is
 * the others' (in a program of four, one that changed 17x made its own
 * shift's spread, and its own test, too wide to fire).  With equal noise
 * and weights this is pi/2 sigma^2 / n with sigma from the MAD of the
 * changes. */
static double delta_var(struct diff_shift *s, double delta, size_t skip)
{
	double per_run = 1 / (double)s->nb + 1 / (double)(s->n - s->nb);
	double mad, sum = 0, sum2v = 0;
	size_t n = 0;

	for (size_t f = 0; f < s->nref; f++) {
		if (f == skip)
			continue;
		s->scratch[n++] = fabs(s->between[f] - delta) / sqrt(s->noise[f] * per_run);
		sum += s->weight[f];
		sum2v += s->weight[f] * s->weight[f] * s->noise[f] * per_run;
	}
	mad = 1.4826 * diff_stats__median(s->scratch, n);
	return M_PI / 2 * fmax(mad * mad, s->by_noise ? 1 : 0) * sum2v / (sum * sum);
}

int diff_shift__measure(struct diff_shift *s, const struct diff_judge *j, enum diff_metric m)
{
	size_t room = j->nrows ? j->nrows : 1;

	*s = (struct diff_shift){ .n = diff_judge__nall(j), .nb = j->nruns[DIFF_BASE] };
	s->within = malloc(room * (s->n ? s->n : 1) * sizeof(*s->within));
	s->between = malloc(room * sizeof(*s->between));
	s->weight = malloc(room * sizeof(*s->weight));
	s->noise = malloc(room * sizeof(*s->noise));
	s->wrun = malloc(room * sizeof(*s->wrun));
	s->lsize = malloc(room * sizeof(*s->lsize));
	s->scratch = malloc(room * sizeof(*s->scratch));
	s->wscratch = malloc(room * sizeof(*s->wscratch));
	s->order = malloc(room * sizeof(*s->order));
	s->ref_of = calloc(room, sizeof(*s->ref_of));
	if (!s->within || !s->between || !s->weight || !s->noise || !s->wrun || !s->lsize ||
	    !s->scratch || !s->wscratch || !s->order || !s->ref_of) {
		diff_shift__free(s);
		return -ENOMEM;
	}
	deviations(s, j, m);
	/* a function's noise needs more runs than the two sides' means take
	 * (5, two a side at least); with fewer, their sizes weigh them, and
	 * they count as equally noisy */
	s->by_noise = s->nb >= 2 && s->n - s->nb >= 2 && s->n >= 5 && s->nref >= 3;
	for (size_t f = 0; f < s->nref; f++)
		s->noise[f] = 1;
	if (s->by_noise) {
		cap_weights(s);
		if (measure_noise(s)) {
			diff_shift__free(s);
			return -ENOMEM;
		}
	}
	memcpy(s->wrun, s->weight, s->nref * sizeof(*s->wrun));
	cap_weights(s);
	s->measured = s->nref >= DIFF_SHIFT_MIN_FUNCTIONS;
	if (s->measured)
		s->var = delta_var(s, median_without(s, s->between, 1, s->nref, s->weight),
				   s->nref);
	return 0;
}

static double shift_without(struct diff_shift *s, size_t skip, double *c)
{
	double mean[2], delta = median_without(s, s->between, 1, skip, s->weight);

	for (size_t k = 0; k < s->n; k++)
		c[k] = median_without(s, s->within + k, s->n, skip, s->wrun);
	mean[0] = diff_stats__mean(c, s->nb);
	mean[1] = diff_stats__mean(c + s->nb, s->n - s->nb);
	for (size_t k = 0; k < s->n; k++)
		c[k] += (k >= s->nb ? delta : 0) - mean[k >= s->nb];
	return delta_var(s, delta, skip);
}

double diff_shift__for(struct diff_shift *s, size_t i, double *c)
{
	if (!s->measured) {
		for (size_t k = 0; k < s->n; k++)
			c[k] = 0;
		return 0;
	}
	return shift_without(s, s->ref_of[i] ? s->ref_of[i] - 1 : s->nref, c);
}

double diff_shift__overall(struct diff_shift *s)
{
	return s->measured ? exp(median_without(s, s->between, 1, s->nref, s->weight)) : 1;
}

void diff_shift__free(struct diff_shift *s)
{
	free(s->within);
	free(s->between);
	free(s->weight);
	free(s->noise);
	free(s->wrun);
	free(s->lsize);
	free(s->scratch);
	free(s->wscratch);
	free(s->order);
	free(s->ref_of);
	*s = (struct diff_shift){ 0 };
}
