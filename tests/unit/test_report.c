// SPDX-License-Identifier: MIT
/* test_report.c: `sledtrace report`'s aggregation of synthetic_stream.h,
 * to the nanosecond: calls (elided ones included), total counted once per
 * outermost activation (recursion), self = total minus direct callees;
 * per thread, where a reused tid is a thread of its own; min/avg/max and
 * the histogram's p50/p99 (bucket midpoints, clamped), share of self time,
 * elided calls; the stats line in every format. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/report.h"
#include "synthetic_stream.h"

static char *run(const struct report_opts *o, bool reuse_tid)
{
	struct report *r;
	struct frame_sink sink;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(report__new(o, &r), 0);
	sink = report__sink(r);
	play_stream(&sink, reuse_tid);
	assert_int_equal(report__print(r, f), 0);
	fclose(f);
	report__free(r);
	return text;
}

static void test_per_function(void **state)
{
	struct report_opts o = { .format = REPORT_TSV };
	char *text = run(&o, false);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"*\tg\t7\t30\t30\t10\t15\t10\t20\t20\t0.103448\t*\t\t\t5\n"
		"*\tf\t3\t80\t50\t10\t26\t31\t40\t40\t0.172414\t*\t\t\t0\n"
		"*\tr\t3\t50\t50\t10\t30\t31\t50\t50\t0.172414\t*\t\t\t0\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t*\t\t\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0\n");
	free(text);
}

static void test_sort_total(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .sort = REPORT_SORT_TOTAL };
	char *text = run(&o, true);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t*\t\t\t0\n"
		"*\tf\t3\t80\t50\t10\t26\t31\t40\t40\t0.172414\t*\t\t\t0\n"
		"*\tr\t3\t50\t50\t10\t30\t31\t50\t50\t0.172414\t*\t\t\t0\n"
		"*\tg\t7\t30\t30\t10\t15\t10\t20\t20\t0.103448\t*\t\t\t5\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0\n");
	free(text);
}

/* B reuses A's tid 5: its rows are its own, under the same tid. */
static void test_by_thread_reused_tid(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .by_thread = true };
	char *text = run(&o, true);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"5\tg\t6\t20\t20\t20\t20\t20\t20\t20\t0.068966\t1\tB\tp\t5\n"
		"5\tr\t3\t50\t50\t10\t30\t31\t50\t50\t0.172414\t1\tA\tp\t0\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\n"
		"5\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0\n");
	free(text);
}

static void test_by_thread(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .by_thread = true };
	char *text = run(&o, false);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"6\tg\t6\t20\t20\t20\t20\t20\t20\t20\t0.068966\t1\tB\tp\t5\n"
		"5\tr\t3\t50\t50\t10\t30\t31\t50\t50\t0.172414\t1\tA\tp\t0\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\n"
		"6\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0\n");
	free(text);
}

static void test_table_stats(void **state)
{
	struct report_opts o = { .format = REPORT_TABLE };
	char *text = run(&o, false);

	(void)state;
	assert_non_null(
		strstr(text,
		       "     CALLS      TOTAL       SELF       MIN       AVG       P50       P99"
		       "       MAX  SHARE  FUNCTION\n"
		       "         7       30ns       30ns      10ns      15ns      10ns      20ns"
		       "      20ns  10.3%  g\n"));
	assert_non_null(strstr(text,
			       "\nstats: events=42 ringbuf_drops=0 unmatched_exits=0 "
			       "inferred_exits=0 unfinished=0 depth_capped=0 "
			       "max_depth_dropped=0 short_dropped=0 ignored_sleds=0\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_function),	     cmocka_unit_test(test_sort_total),
		cmocka_unit_test(test_by_thread_reused_tid), cmocka_unit_test(test_by_thread),
		cmocka_unit_test(test_table_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
