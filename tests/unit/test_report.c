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
#include "model/probe_comp.h"
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
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10 times=raw\n");
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
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10 times=raw\n");
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
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10 times=raw\n");
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
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10 times=raw\n");
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
	assert_non_null(strstr(
		text,
		"\nstats: events=42 ringbuf_drops=0 unmatched_exits=0 "
		"inferred_exits=0 unfinished=0 depth_capped=0 "
		"max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10\n"
		"times: raw\n"));
	free(text);
}

/* The stream's shortest leaf is 10 ns: the run's probe cost.  Hits by
 * hand (total/self): g 1/1 each; f(10..50) 3/2, f(60..70) 1/1,
 * f(300..330) 3/2; r(220..230) 1/1, r(210..240) 3/2, r(200..250) 5/2;
 * main 13/4.  Rows: g 30-20/30-20, f 80-70/50-50, r 50-50 (outermost
 * only)/50-50, main 260-130/160-40. */
static void test_compensated(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .times = REPORT_TIMES_COMPENSATED };
	char *text = run(&o, false);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"*\tg\t7\t10\t10\t10\t15\t10\t20\t20\t0.076923\t*\t\t\t5\n"
		"*\tf\t3\t10\t0\t10\t26\t31\t40\t40\t0.000000\t*\t\t\t0\n"
		"*\tr\t3\t0\t0\t10\t30\t31\t50\t50\t0.000000\t*\t\t\t0\n"
		"*\tmain\t1\t130\t120\t260\t260\t260\t260\t260\t0.923077\t*\t\t\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 ignored_sleds=0 coverage_gaps=0 probe_cost_ns=10 "
		"times=compensated\n");
	free(text);
}

/* A parent with two leaf children, the second with a child of its own. */
static void test_comp_arithmetic(void **state)
{
	struct comp_depth parent = { 0 }, leaf = { 0 }, mid = { 0 };
	uint64_t self, hits;

	(void)state;
	assert_int_equal(comp__leave(&leaf, &parent, &self), 1);
	assert_int_equal(self, 1);
	assert_int_equal(comp__leave(&leaf, &mid, &self), 1);
	assert_int_equal(comp__leave(&mid, &parent, &self), 3);
	assert_int_equal(self, 2);
	hits = comp__leave(&parent, NULL, &self);
	assert_int_equal(hits, 1 + (1 + 1) + (1 + 3));
	assert_int_equal(self, 3);
	assert_int_equal(comp__apply(100, 7, 10), 30);
	assert_int_equal(comp__apply(60, 7, 10), 0);
	assert_int_equal(comp__apply(100, 7, 0), 100);
	assert_int_equal(comp__apply(100, UINT64_MAX / 2, 10), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_function),	     cmocka_unit_test(test_sort_total),
		cmocka_unit_test(test_by_thread_reused_tid), cmocka_unit_test(test_by_thread),
		cmocka_unit_test(test_table_stats),	     cmocka_unit_test(test_compensated),
		cmocka_unit_test(test_comp_arithmetic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
