// SPDX-License-Identifier: MIT
/* test_report.c: `sledtrace report`'s aggregation of synthetic_stream.h,
 * to the nanosecond: calls (elided ones included), total counted once per
 * outermost activation (recursion), self = total minus direct callees;
 * per thread, where a reused tid is a thread of its own; min/avg/max and
 * the histogram's p50/p99 (bucket midpoints, clamped), share of self time,
 * elided calls; the stats line in every format; compensated times per
 * call, every column of a row of one kind and adding up. */
#include <errno.h>
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
		"*\tg\t7\t30\t30\t10\t4\t10\t20\t20\t0.103448\t*\t\t\t5\n"
		"*\tf\t3\t80\t50\t10\t26\t31\t40\t40\t0.172414\t*\t\t\t0\n"
		"*\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t*\t\t\t0\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t*\t\t\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10 times=raw\n");
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
		"*\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t*\t\t\t0\n"
		"*\tg\t7\t30\t30\t10\t4\t10\t20\t20\t0.103448\t*\t\t\t5\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10 times=raw\n");
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
		"5\tg\t6\t20\t20\t20\t3\t20\t20\t20\t0.068966\t1\tB\tp\t5\n"
		"5\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t1\tA\tp\t0\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\n"
		"5\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10 times=raw\n");
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
		"6\tg\t6\t20\t20\t20\t3\t20\t20\t20\t0.068966\t1\tB\tp\t5\n"
		"5\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t1\tA\tp\t0\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\n"
		"6\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10 times=raw\n");
	free(text);
}

static void test_table_stats(void **state)
{
	struct report_opts o = { .format = REPORT_TABLE };
	char *text = run(&o, false);

	(void)state;
	assert_non_null(
		strstr(text,
		       "times: raw, as the timestamps say\n"
		       "     CALLS      TOTAL       SELF       MIN       AVG       P50       P99"
		       "       MAX  SHARE  FUNCTION\n"
		       "         7       30ns       30ns      10ns       4ns      10ns      20ns"
		       "      20ns  10.3%  g\n"));
	assert_non_null(strstr(
		text,
		"\nstats: events=42 ringbuf_drops=0 unmatched_exits=0 "
		"inferred_exits=0 unfinished=0 depth_capped=0 "
		"max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10\n"
		"times: raw\n"));
	free(text);
}

/* The stream's shortest leaf is 10 ns: the run's probe cost.  Hits by
 * hand (total/self): g 1/1 each; f(10..50) 3/2, f(60..70) 1/1,
 * f(300..330) 3/2; r(220..230) 1/1, r(210..240) 3/2, r(200..250) 5/2;
 * main 13/4.  Each call less 10 ns per hit, clamped at 0 on its own:
 * g 0 and 10; f 10/10, 0/0 and 0/0 (its self 10 - 20 clamps alone, not
 * against the first f's 10); r 0/0 three times; main 130/120.  The rows'
 * columns are all made of those: min, p50 and max over them, total and
 * self their sums (r: the outermost only), avg total / calls. */
static void test_compensated(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .times = REPORT_TIMES_COMPENSATED };
	char *text = run(&o, false);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\n"
		"*\tg\t7\t10\t10\t0\t1\t0\t10\t10\t0.071429\t*\t\t\t5\n"
		"*\tf\t3\t10\t10\t0\t3\t0\t10\t10\t0.071429\t*\t\t\t0\n"
		"*\tr\t3\t0\t0\t0\t0\t0\t0\t0\t0.000000\t*\t\t\t0\n"
		"*\tmain\t1\t130\t120\t130\t130\t130\t130\t130\t0.857143\t*\t\t\t0\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 probe_cost_ns=10 "
		"times=compensated\n");
	free(text);
}

/* Every row of every grouping, raw and compensated: avg is total / calls
 * (integer division, exactly), and min <= p50 <= p99 <= max <= total. */
static void check_columns(const char *text)
{
	const char *line = strchr(text, '\n');
	int rows = 0;

	assert_non_null(line);
	for (line++; *line && *line != '#'; line = strchr(line, '\n') + 1) {
		unsigned long long c[8];

		/* tid, function, then the eight numbers */
		assert_int_equal(sscanf(line,
					"%*[^\t]\t%*[^\t]\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu"
					"\t%llu\t%llu",
					&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]),
				 8);
		if (c[4] != c[1] / c[0] || c[3] > c[5] || c[5] > c[6] || c[6] > c[7] || c[7] > c[1])
			fail_msg("columns do not add up: %.*s", (int)strcspn(line, "\n"), line);
		rows++;
	}
	assert_true(rows >= 4);
}

static void test_columns_add_up(void **state)
{
	static const enum report_times kinds[] = { REPORT_TIMES_RAW, REPORT_TIMES_COMPENSATED };

	(void)state;
	for (size_t k = 0; k < 2; k++)
		for (int group = 0; group < 3; group++) {
			struct report_opts o = { .format = REPORT_TSV,
						 .times = kinds[k],
						 .by_thread = group == 1,
						 .by_process = group == 2 };
			char *text = run(&o, group == 1);

			check_columns(text);
			free(text);
		}
}

/* The table says first which times all its columns show. */
static void test_table_says_times(void **state)
{
	struct report_opts o = { .format = REPORT_TABLE, .times = REPORT_TIMES_COMPENSATED };
	char *text = run(&o, false);

	(void)state;
	assert_true(!strncmp(text, "times: compensated, each call less 10 ns per probe hit\n",
			     strlen("times: compensated, each call less 10 ns per probe hit\n")));
	free(text);
	o.callers = "g";
	text = run(&o, false);
	assert_true(!strncmp(text,
			     "times: compensated, each call less 10 ns per probe hit\n"
			     "callers of g\n",
			     strlen("times: compensated, each call less 10 ns per probe hit\n"
				    "callers of g\n")));
	free(text);
}

/* The calls are compensated as they end, with the cost handed over
 * first: a trace whose stats end with another is refused, not mixed. */
static void test_cost_must_match(void **state)
{
	struct report_opts o = { .times = REPORT_TIMES_COMPENSATED };
	struct trace_function fn = { .id = 1, .name = "leaf" };
	struct trace_stats st = { 0 };
	struct frame_builder *fb;
	struct fb_thread *t;
	struct report *r;
	struct frame_sink sink;

	(void)state;
	assert_int_equal(report__new(&o, &r), 0);
	sink = report__sink(r);
	assert_int_equal(sink.ops->probe_cost(sink.ctx, 9), 0);
	assert_non_null(fb = frame_builder__new(&sink));
	assert_int_equal(frame_builder__function(fb, &fn), 0);
	assert_int_equal(frame_builder__thread(fb, 1, 1, "T", "p", NULL, &t), 0);
	st_call(fb, t, 1, 100);
	st_ret(fb, t, 110); /* calibrates 10 ns */
	assert_int_equal(frame_builder__finish(fb, &st), -EPROTO);
	frame_builder__free(fb);
	report__free(r);
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
		cmocka_unit_test(test_comp_arithmetic),	     cmocka_unit_test(test_columns_add_up),
		cmocka_unit_test(test_table_says_times),     cmocka_unit_test(test_cost_must_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
