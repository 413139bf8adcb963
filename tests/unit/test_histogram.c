// SPDX-License-Identifier: MIT
/* test_histogram.c: report's percentiles come from log buckets; they must
 * stay within the documented 6.25% of the exact order statistic, for
 * small and huge durations alike, and be exact below 8 ns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/histogram.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static void check_quantiles(uint64_t *v, size_t n)
{
	static const double qs[] = { 0.01, 0.25, 0.5, 0.9, 0.99, 1.0 };
	struct histogram *h = calloc(1, sizeof(*h));

	assert_non_null(h);
	for (size_t i = 0; i < n; i++)
		histogram__add(h, v[i]);
	qsort(v, n, sizeof(*v), cmp);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		size_t rank = (size_t)(qs[k] * (double)n + 0.999999);
		uint64_t exact = v[(rank ? rank : 1) - 1];
		uint64_t got = histogram__quantile(h, n, qs[k], v[0], v[n - 1]);
		double err = exact ? (double)(got > exact ? got - exact : exact - got) /
					     (double)exact
				   : (double)got;

		if (err > 0.0625)
			fail_msg("q%.2f: exact %llu, histogram %llu (%.2f%%)", qs[k],
				 (unsigned long long)exact, (unsigned long long)got, 100 * err);
	}
	free(h);
}

static void test_spread(void **state)
{
	uint64_t v[20000];
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (size_t i = 0; i < 20000; i++) { /* xorshift: 1 ns .. ~1e12 ns, log-spread */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v[i] = (x % 1000000) * (1ULL << (x % 21)) + 1;
	}
	check_quantiles(v, 20000);
}

static void test_small_exact(void **state)
{
	uint64_t v[] = { 0, 1, 2, 3, 4, 5, 6, 7, 7, 7 };
	struct histogram h = { 0 };

	(void)state;
	for (size_t i = 0; i < 10; i++)
		histogram__add(&h, v[i]);
	assert_int_equal(histogram__quantile(&h, 10, 0.5, 0, 7), 4);
	assert_int_equal(histogram__quantile(&h, 10, 0.1, 0, 7), 0);
	assert_int_equal(histogram__quantile(&h, 10, 0.99, 0, 7), 7);
}

static void test_one_value(void **state)
{
	uint64_t v[] = { 123456789 };

	(void)state;
	check_quantiles(v, 1);
	assert_true(histogram__bucket(UINT64_MAX) < HIST_BUCKETS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_small_exact),
		cmocka_unit_test(test_one_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
