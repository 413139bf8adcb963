// SPDX-License-Identifier: MIT
/* estimate_moderate.c: see estimate_moderate.h.  With z = ln s^2, the scaled
 * inverse chi-square model gives E z = ln s0^2 + digamma(d/2) - ln(d/2)
 * and Var z = trigamma(d/2) + trigamma(d0/2): the trend comes from a
 * least-squares line of z against the log size, d0 from the variance of
 * the residuals beyond what d alone explains. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "diff/estimate_moderate.h"
#include "diff/estimate_stats.h"

/* Least squares z = a + b x. */
static void line(const double *z, const double *x, size_t g, double *a, double *b)
{
	double mx = diff_stats__mean(x, g), mz = diff_stats__mean(z, g), sxx = 0, sxz = 0;

	for (size_t i = 0; i < g; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxz += (x[i] - mx) * (z[i] - mz);
	}
	*b = sxx > 0 ? sxz / sxx : 0;
	*a = mz - *b * mx;
}

int diff_moderate__fit(struct diff_moderation *m, const double *s2, const double *x, size_t n,
		       double d)
{
	double *z, shift = diff_stats__digamma(d / 2) - log(d / 2), res = 0, excess;

	*m = (struct diff_moderation){ .d = d };
	if (n < DIFF_MODERATE_MIN || !(d > 0))
		return 0;
	if (!(z = malloc(n * sizeof(*z))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		z[i] = log(s2[i]) - shift;
	line(z, x, n, &m->a, &m->b);
	for (size_t i = 0; i < n; i++)
		res += (z[i] - m->a - m->b * x[i]) * (z[i] - m->a - m->b * x[i]);
	excess = res / (double)(n - 2) - diff_stats__trigamma(d / 2);
	m->d0 = excess > 0 ? 2 * diff_stats__trigamma_inv(excess) : DIFF_MODERATE_MAX_D0;
	if (m->d0 > DIFF_MODERATE_MAX_D0)
		m->d0 = DIFF_MODERATE_MAX_D0;
	/* the line is E ln s^2 less digamma(d/2) - ln(d/2), which is
	 * ln s0^2 - digamma(d0/2) + ln(d0/2) */
	m->a += diff_stats__digamma(m->d0 / 2) - log(m->d0 / 2);
	free(z);
	return 0;
}

double diff_moderate__var(const struct diff_moderation *m, double s2, double x)
{
	double s02 = exp(m->a + m->b * x);

	if (!(m->d0 > 0))
		return s2;
	return (m->d0 * s02 + m->d * s2) / (m->d0 + m->d);
}
