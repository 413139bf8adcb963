// SPDX-License-Identifier: MIT
/* test_probe_comp.c: the compensation arithmetic of model/probe_comp.h on
 * frames whose probes are counted by hand: what a frame's self and total
 * hold of probes with I (the inside part of a call, the shortest leaf) and
 * C (a whole entry and exit hit) apart, and that C = 2I gives back the hit
 * counts sledtrace compensated with before C was measured. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/probe_comp.h"

/* parent { leaf, mid { leaf } }: n and k per frame. */
static void test_leave_counts(void **state)
{
	struct comp_depth parent = { 0 }, leaf = { 0 }, mid = { 0 };
	struct comp_frame f;

	(void)state;
	f = comp__leave(&leaf, &parent);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.k, 0);
	f = comp__leave(&leaf, &mid);
	f = comp__leave(&mid, &parent);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.k, 1);
	f = comp__leave(&parent, NULL);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.k, 2);
}

/* I = 100, C = 1000 (an entry and an exit hit, whole): a leaf holds I in
 * both; a frame with 3 direct children and 7 calls under it holds
 * I + 3 (C - I) in self and I + 7 C in total. */
static void test_split_costs(void **state)
{
	struct comp_cost c = comp__costs(100, 600, 400);
	struct comp_frame leaf = { 1, 0 }, parent = { 8, 3 };

	(void)state;
	assert_int_equal(c.inside_ns, 100);
	assert_int_equal(c.call_ns, 1000);
	assert_int_equal(comp__in_total(&c, leaf), 100);
	assert_int_equal(comp__in_self(&c, leaf), 100);
	assert_int_equal(comp__in_self(&c, parent), 100 + 3 * 900);
	assert_int_equal(comp__in_total(&c, parent), 100 + 7 * 1000);
	assert_int_equal(comp__sub(5000, comp__in_self(&c, parent)), 5000 - 2800);
	assert_int_equal(comp__sub(2000, comp__in_self(&c, parent)), 0);
}

/* Without a measured C (an older trace, a calibration that failed) C is
 * 2I: hits in self 1 + k, in total 2n - 1, each of cost I, as before. */
static void test_unmeasured_is_hits(void **state)
{
	struct comp_cost c = comp__costs(10, 0, 0);
	struct comp_frame f = { 4, 2 };

	(void)state;
	assert_int_equal(c.call_ns, 20);
	assert_int_equal(comp__in_self(&c, f), 10 * (1 + 2));
	assert_int_equal(comp__in_total(&c, f), 10 * (2 * 4 - 1));
	c = comp__costs(10, 500, 0); /* half a measure is none */
	assert_int_equal(c.call_ns, 20);
}

/* A shortest leaf over 20 us measured work: nothing is taken out, whatever
 * C says; a C below I counts as I (no hit costs less than its inside). */
static void test_guards(void **state)
{
	struct comp_cost c = comp__costs(COMP_MAX_PROBE_COST_NS + 1, 600, 400);
	struct comp_frame f = { 8, 3 };

	(void)state;
	assert_int_equal(c.inside_ns, 0);
	assert_int_equal(comp__in_total(&c, f), 0);
	assert_int_equal(comp__in_self(&c, f), 0);
	c = comp__costs(0, 600, 400);
	assert_int_equal(comp__in_total(&c, f), 0);
	c = comp__costs(300, 100, 100);
	assert_int_equal(c.call_ns, 300);
	assert_int_equal(comp__in_self(&c, f), 300);
	assert_int_equal(comp__in_total(&c, f), 300 + 7 * 300);
}

/* Saturating, never wrapping: a huge subtree takes everything out. */
static void test_saturates(void **state)
{
	struct comp_cost c = comp__costs(10, 600, 400);

	(void)state;
	assert_int_equal(comp__in_total(&c, (struct comp_frame){ UINT64_MAX / 2, 1 }), UINT64_MAX);
	assert_int_equal(comp__sub(100, UINT64_MAX), 0);
	assert_int_equal(comp__apply(100, 7, 10), 30);
	assert_int_equal(comp__apply(60, 7, 10), 0);
	assert_int_equal(comp__apply(100, UINT64_MAX / 2, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leave_counts),	   cmocka_unit_test(test_split_costs),
		cmocka_unit_test(test_unmeasured_is_hits), cmocka_unit_test(test_guards),
		cmocka_unit_test(test_saturates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
