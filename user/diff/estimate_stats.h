/* SPDX-License-Identifier: MIT */
/* estimate_stats.h: the arithmetic behind `sledtrace diff`'s verdicts, with no
 * knowledge of traces: medians and spreads, Student's t distribution (for
 * Welch's test), and the Benjamini-Hochberg procedure that keeps false
 * alarms rare when hundreds of functions are tested at once. */
#ifndef SLEDTRACE_DIFF_ESTIMATE_STATS_H
#define SLEDTRACE_DIFF_ESTIMATE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* A metric over the runs of one side: median, range and the median
 * absolute deviation from the median. */
struct diff_spread {
	double median, min, max, mad;
};

/* Sorts x in place; 0 for n == 0. */
double diff_stats__median(double *x, size_t n);
/* The weighted median of x[0..n) (weights w > 0): the least x whose
 * sorted running weight reaches half the total.  order is scratch room
 * for n indexes. */
double diff_stats__wmedian(const double *x, const double *w, size_t n, size_t *order);
/* Sorts and overwrites x. */
struct diff_spread diff_stats__spread(double *x, size_t n);
double diff_stats__mean(const double *x, size_t n);
/* Sample variance (n - 1 in the denominator); 0 for n < 2. */
double diff_stats__var(const double *x, size_t n);

/* P(T > t) for Student's t with df > 0 degrees of freedom. */
double diff_stats__t_sf(double t, double df);
/* The t with P(T > t) = p, for 0 < p < 1. */
double diff_stats__t_isf(double p, double df);

/* The digamma and trigamma functions (first and second derivatives of
 * ln Gamma), for x > 0. */
double diff_stats__digamma(double x);
double diff_stats__trigamma(double x);
/* The y > 0 with trigamma(y) = v, for v > 0. */
double diff_stats__trigamma_inv(double v);

/* Welch's two-sample comparison of means: the difference b_mean - a_mean,
 * its standard error and the Welch-Satterthwaite degrees of freedom. */
struct diff_welch {
	double diff, se, df;
};
/* Needs na, nb >= 2. */
struct diff_welch diff_stats__welch(const double *a, size_t na, const double *b, size_t nb);

/* Benjamini-Hochberg at false discovery rate q over p[0..m): sets
 * reject[i] and returns how many are rejected; order is scratch room for
 * m indexes.  With no real change anywhere, the chance of rejecting
 * anything is at most q. */
size_t diff_stats__bh(const double *p, size_t m, double q, bool *reject, size_t *order);

#endif
