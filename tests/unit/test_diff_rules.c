// SPDX-License-Identifier: MIT
/* test_diff_rules.c: the --fail-on grammar of `sledtrace diff` (what parses,
 * what is rejected with one message), and what a parsed rule compares:
 * the threshold, relative or absolute, its direction and the regex.  When
 * the evidence lets a rule fire is test_diff_verdict.c's. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/values.h"
#include "diff/judge_rules.h"

static char err[512];

static struct diff_rule *rule(const char *text)
{
	struct diff_rule *r = NULL;

	assert_int_equal(diff_rule__parse(text, cli_parse_duration, &r, err, sizeof(err)), 0);
	assert_non_null(r);
	return r;
}

static bool passes(const char *text, const char *name, double change, double pct)
{
	struct diff_rule *r = rule(text);
	bool f = diff_rule__matches(r, name) && diff_rule__passes(r, change, pct);

	diff_rule__free(r);
	return f;
}

static void test_grammar(void **state)
{
	const char *good[] = { "calls>0%",
			       "self>15%:^parse_",
			       "total>2ms",
			       "avg>=1.5us",
			       " calls < -10%",
			       "self<=-20%",
			       "calls>100",
			       "total>0s",
			       "self>5%:a:b",
			       "edge-calls>0%",
			       "edge-calls>10:-> hot$",
			       "cpu>2ms",
			       "cpu-self>10%:^parse_" };
	const char *bad[] = { "",	    "calls",	  "calls>",	    "speed>5%",
			      "calls>>5%",  "self>5",	  "calls>5ms",	    "self>5%:(",
			      "self>5%:",   "calls 5%",	  "self>x%",	    "total>2 parsecs",
			      "total>0",    "edge>0%",	  "edge-calls>1ms", "edge-self>5%",
			      "cpu-self>5", "cpuself>5%", "cpu-total>5%",   "cpu->5%" };
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
	r = rule("edge-calls>0%");
	assert_int_equal(diff_rule__metric(r), DIFF_EDGE_CALLS);
	diff_rule__free(r);
	r = rule("cpu>1ms");
	assert_int_equal(diff_rule__metric(r), DIFF_CPU);
	diff_rule__free(r);
	r = rule("cpu-self<=-5%");
	assert_int_equal(diff_rule__metric(r), DIFF_CPU_SELF);
	diff_rule__free(r);
}

static void test_thresholds_and_regex(void **state)
{
	(void)state;
	/* 1000 -> 1500 calls: +500, +50% */
	assert_true(passes("calls>0%", "parse_header", 500, 50));
	assert_true(passes("calls>=50%", "parse_header", 500, 50));
	assert_false(passes("calls>50%", "parse_header", 500, 50));
	assert_true(passes("calls>499", "parse_header", 500, 50));
	assert_false(passes("calls>500", "parse_header", 500, 50));
	assert_false(passes("calls<0%", "parse_header", 500, 50));
	assert_true(passes("calls>0%:^parse_", "parse_header", 500, 50));
	assert_false(passes("calls>0%:^emit_", "parse_header", 500, 50));
	/* new and gone: +-infinity against a percentage */
	assert_true(passes("calls>1000%", "f", 10, INFINITY));
	assert_true(passes("calls<-99%", "f", -10, -INFINITY));
	assert_false(passes("calls>0%", "f", -10, -INFINITY));
	/* no change passes no strict threshold; no estimate passes nothing */
	assert_false(passes("calls>0%", "f", 0, 0));
	assert_false(passes("self>0%", "f", NAN, NAN));
	/* times: a duration against the absolute change, negative thresholds */
	assert_true(passes("self>29us", "f", 30000, 300));
	assert_false(passes("self>30us", "f", 30000, 300));
	assert_true(passes("self<-50%", "f", -30000, -75));
	assert_true(passes("total>-5%", "f", 0, 0));
	/* a call path's rule matches "CALLER -> CALLEE" */
	assert_true(passes("edge-calls>0%:^main -> hot$", "main -> hot", 500, 50));
	assert_false(passes("edge-calls>0%:^main -> hot$", "other -> hot", 500, 50));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grammar),
		cmocka_unit_test(test_thresholds_and_regex),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
