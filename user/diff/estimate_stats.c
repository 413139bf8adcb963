// SPDX-License-Identifier: MIT
/* estimate_stats.c: see estimate_stats.h.  Student's t tail comes from the
 * regularised incomplete beta function, I_x(a, b), evaluated by its
 * continued fraction (modified Lentz), which converges quickly on the side
 * of x < (a + 1) / (a + b + 2) and is used through the symmetry
 * I_x(a, b) = 1 - I_{1-x}(b, a) on the other. */
#include <math.h>
#include <stdlib.h>

#include "diff/estimate_stats.h"

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

double diff_stats__median(double *x, size_t n)
{
	if (!n)
		return 0;
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static int cmp_by_value(const void *pa, const void *pb, void *ctx)
{
	const double *x = ctx;

	return cmp_double(&x[*(const size_t *)pa], &x[*(const size_t *)pb]);
}

double diff_stats__wmedian(const double *x, const double *w, size_t n, size_t *order)
{
	double total = 0, acc = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		total += w[i];
	}
	qsort_r(order, n, sizeof(*order), cmp_by_value, (void *)x);
	for (size_t i = 0; i < n; i++)
		if ((acc += w[order[i]]) >= total / 2)
			return x[order[i]];
	return x[order[n - 1]];
}

struct diff_spread diff_stats__spread(double *x, size_t n)
{
	struct diff_spread s = { 0 };

	if (!n)
		return s;
	s.median = diff_stats__median(x, n);
	s.min = x[0];
	s.max = x[n - 1];
	for (size_t i = 0; i < n; i++)
		x[i] = fabs(x[i] - s.median);
	s.mad = diff_stats__median(x, n);
	return s;
}

double diff_stats__mean(const double *x, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += x[i];
	return n ? s / (double)n : 0;
}

double diff_stats__var(const double *x, size_t n)
{
	double m = diff_stats__mean(x, n), s = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return s / (double)(n - 1);
}

#define TINY 1e-300

static double lentz_step(double *c, double *d, double a)
{
	*d = 1 + a * *d;
	*d = fabs(*d) < TINY ? TINY : *d;
	*c = 1 + a / *c;
	*c = fabs(*c) < TINY ? TINY : *c;
	*d = 1 / *d;
	return *c * *d;
}

/* The continued fraction of I_x(a, b), without its prefactor. */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	d = 1 / (fabs(d) < TINY ? TINY : d);
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m, step;

		h *= lentz_step(&c, &d, m * (b - m) * x / ((a - 1 + m2) * (a + m2)));
		step = lentz_step(&c, &d, -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2)));
		h *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double diff_stats__t_sf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? tail : 1 - tail;
}

/* Bisection: t_sf is monotonic, and 200 halvings of a bracket that starts
 * at +-1e6 reach double precision whatever the tail. */
double diff_stats__t_isf(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (diff_stats__t_sf(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Both by the recurrence up to x >= 6, then the asymptotic series, which
 * is then good to ~1e-12. */
double diff_stats__digamma(double x)
{
	double r = 0, x2;

	for (; x < 6; x++)
		r -= 1 / x;
	x2 = 1 / (x * x);
	return r + log(x) - 0.5 / x -
	       x2 * (1.0 / 12 - x2 * (1.0 / 120 - x2 * (1.0 / 252 - x2 * (1.0 / 240))));
}

double diff_stats__trigamma(double x)
{
	double r = 0, x2;

	for (; x < 6; x++)
		r += 1 / (x * x);
	x2 = 1 / (x * x);
	return r + 1 / x + x2 / 2 +
	       x2 / x * (1.0 / 6 - x2 * (1.0 / 30 - x2 * (1.0 / 42 - x2 * (1.0 / 30))));
}

/* trigamma falls from +inf to 0 on (0, inf): bisect in log y. */
double diff_stats__trigamma_inv(double v)
{
	double lo = log(1e-8), hi = log(1e8);

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (diff_stats__trigamma(exp(mid)) > v)
			lo = mid;
		else
			hi = mid;
	}
	return exp((lo + hi) / 2);
}

struct diff_welch diff_stats__welch(const double *a, size_t na, const double *b, size_t nb)
{
	double va = diff_stats__var(a, na) / (double)na, vb = diff_stats__var(b, nb) / (double)nb;
	struct diff_welch w = { .diff = diff_stats__mean(b, nb) - diff_stats__mean(a, na) };

	w.se = sqrt(va + vb);
	/* identical runs on both sides: no spread to estimate, the least df */
	w.df = va + vb > 0 ? (va + vb) * (va + vb) /
				     (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1))
			   : (double)(na < nb ? na : nb) - 1;
	return w;
}

static int cmp_by_p(const void *pa, const void *pb, void *ctx)
{
	const double *p = ctx;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;

	return cmp_double(&p[a], &p[b]);
}

size_t diff_stats__bh(const double *p, size_t m, double q, bool *reject, size_t *order)
{
	size_t k = 0;

	for (size_t i = 0; i < m; i++)
		reject[i] = false;
	for (size_t i = 0; i < m; i++)
		order[i] = i;
	qsort_r(order, m, sizeof(*order), cmp_by_p, (void *)p);
	for (size_t j = 1; j <= m; j++)
		if (p[order[j - 1]] <= q * (double)j / (double)m)
			k = j;
	for (size_t j = 0; j < k; j++)
		reject[order[j]] = true;
	return k;
}
