// SPDX-License-Identifier: MIT
/* test_diff_rules.c: the --fail-on grammar of `sledtrace diff` (what parses,
 * what is rejected with one message), and when a parsed rule fires: the
 * threshold, the regex, --min-time and the noise gate (3 MADs per side). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/diff_rules.h"
#include "cli/values.h"

static char err[512];

static struct diff_rule *rule(const char *text)
{
	struct diff_rule *r = NULL;

	assert_int_equal(diff_rule__parse(text, cli_parse_duration, &r, err, sizeof(err)), 0);
	assert_non_null(r);
	return r;
}

/* One run per side unless mads are set: base -> head for metric m. */
static struct diff_row row_of(const char *name, enum diff_metric m, double base, double head)
{
	struct diff_row r = { .name = name, .status = DIFF_CHANGED };

	r.v[DIFF_BASE][m].median = base;
	r.v[DIFF_HEAD][m].median = head;
	r.change[m] = head - base;
	r.change_pct[m] = base ? 100 * (head - base) / base : head > base ? INFINITY : 0;
	return r;
}

static bool fires(const char *text, const struct diff_row *row, uint64_t min_time_ns)
{
	struct diff_rule *r = rule(text);
	bool f = diff_rule__fires(r, row, min_time_ns);

	diff_rule__free(r);
	return f;
}

static void test_grammar(void **state)
{
	const char *good[] = { "calls>0%",   "self>15%:^parse_", "total>2ms",
			       "avg>=1.5us", " calls < -10%",	 "self<=-20%",
			       "calls>100",  "total>0s",	 "self>5%:a:b" };
	const char *bad[] = { "",	 "calls",	    "calls>",	 "speed>5%", "calls>>5%",
			      "self>5",	 "calls>5ms",	    "self>5%:(", "self>5%:", "calls 5%",
			      "self>x%", "total>2 parsecs", "total>0" };
	struct diff_rule *r;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		diff_rule__free(rule(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = NULL;
		err[0] = '\0';
		assert_int_equal(diff_rule__parse(bad[i], cli_parse_duration, &r, err, sizeof(err)),
				 -EINVAL);
		assert_null(r);
		assert_non_null(strstr(err, "bad rule"));
		assert_null(strchr(err, '\n'));
	}
	r = rule("self>15%:^parse_");
	assert_string_equal(diff_rule__text(r), "self>15%:^parse_");
	assert_int_equal(diff_rule__metric(r), DIFF_SELF);
	diff_rule__free(r);
}

static void test_thresholds_and_regex(void **state)
{
	struct diff_row r = row_of("parse_header", DIFF_CALLS, 1000, 1500);

	(void)state;
	assert_true(fires("calls>0%", &r, 0));
	assert_true(fires("calls>=50%", &r, 0));
	assert_false(fires("calls>50%", &r, 0));
	assert_true(fires("calls>499", &r, 0));
	assert_false(fires("calls>500", &r, 0));
	assert_false(fires("calls<0%", &r, 0));
	assert_true(fires("calls>0%:^parse_", &r, 0));
	assert_false(fires("calls>0%:^emit_", &r, 0));
	/* A rule looks at its own metric only. */
	assert_false(fires("self>0%", &r, 0));

	r = row_of("f", DIFF_CALLS, 0, 10); /* new */
	assert_true(fires("calls>1000%", &r, 0));
	r = row_of("f", DIFF_CALLS, 10, 0); /* gone */
	assert_true(fires("calls<-99%", &r, 0));
	assert_false(fires("calls>0%", &r, 0));
	/* No change never fires, whatever the operator. */
	r = row_of("f", DIFF_CALLS, 10, 10);
	assert_false(fires("calls>=0%", &r, 0));
	assert_false(fires("calls<=0", &r, 0));
}

static void test_min_time(void **state)
{
	struct diff_row r = row_of("f", DIFF_SELF, 10e3, 40e3); /* +30 us, +300% */

	(void)state;
	assert_true(fires("self>100%", &r, 0));
	assert_true(fires("self>100%", &r, 30000));
	assert_false(fires("self>100%", &r, 30001));
	assert_true(fires("self>29us", &r, 0));
	assert_false(fires("self>30us", &r, 0));
	r = row_of("f", DIFF_SELF, 40e3, 10e3); /* faster */
	assert_true(fires("self<-50%", &r, 20000));
	assert_false(fires("self<-50%", &r, 50000));
}

static void test_noise_gate(void **state)
{
	struct diff_row r = row_of("f", DIFF_TOTAL, 10e6, 13e6); /* +3 ms, +30% */

	(void)state;
	/* Runs that agree within 0.5 ms (MAD): 3 ms is beyond the noise. */
	r.v[DIFF_BASE][DIFF_TOTAL].mad = 0.5e6;
	r.v[DIFF_HEAD][DIFF_TOTAL].mad = 0.5e6;
	assert_true(fires("total>20%", &r, 0));
	/* Either side's runs spread by a 1 ms MAD: 3 ms is within 3 MADs. */
	r.v[DIFF_HEAD][DIFF_TOTAL].mad = 1e6;
	assert_false(fires("total>20%", &r, 0));
	r.v[DIFF_HEAD][DIFF_TOTAL].mad = 0.5e6;
	r.v[DIFF_BASE][DIFF_TOTAL].mad = 1e6;
	assert_false(fires("total>20%", &r, 0));
	/* Counts are exact: no noise gate for calls. */
	r.v[DIFF_BASE][DIFF_CALLS].mad = 100;
	r.change[DIFF_CALLS] = 1;
	r.change_pct[DIFF_CALLS] = 1;
	assert_true(fires("calls>0%", &r, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_thresholds_and_regex),
		cmocka_unit_test(test_min_time),
		cmocka_unit_test(test_noise_gate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
