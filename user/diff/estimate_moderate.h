/* SPDX-License-Identifier: MIT */
/* estimate_moderate.h: run-to-run variances that borrow strength from each
 * other.  Each function's variance from a handful of runs is a rough
 * guess: by chance it can come out small, and Student's t with few
 * degrees of freedom has heavy tails to make up for it, which costs the
 * power to see real changes.  The functions of one program tell more
 * together: empirical Bayes (Smyth 2004, "limma") takes their variances
 * as scaled inverse chi-square around a prior s0^2 that follows the
 * functions' size (bigger functions are steadier), with d0 degrees of
 * freedom estimated from how widely the variances scatter around that
 * trend.  Each function's variance is then (d0 s0^2 + d s^2) / (d0 + d),
 * with d0 + d degrees of freedom.  Widely scattered variances give a small
 * d0 (little borrowed); alike ones a large d0.  Fewer than
 * DIFF_MODERATE_MIN functions: nothing is borrowed. */
#ifndef SLEDTRACE_DIFF_ESTIMATE_MODERATE_H
#define SLEDTRACE_DIFF_ESTIMATE_MODERATE_H

#include <stddef.h>

#define DIFF_MODERATE_MIN 10
/* Never borrow more than this many degrees of freedom. */
#define DIFF_MODERATE_MAX_D0 50

struct diff_moderation {
	double d;    /* each function's own degrees of freedom */
	double d0;   /* borrowed; 0: none */
	double a, b; /* prior log variance: a + b x (x: log size) */
};

/* s2[i], x[i] of n functions, each with d degrees of freedom (s2 > 0).
 * Returns 0 or -ENOMEM. */
int diff_moderate__fit(struct diff_moderation *m, const double *s2, const double *x, size_t n,
		       double d);
/* The moderated variance of a function with variance s2 and log size x. */
double diff_moderate__var(const struct diff_moderation *m, double s2, double x);

#endif
