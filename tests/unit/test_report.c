// SPDX-License-Identifier: MIT
/* test_report.c: `sledtrace report`'s aggregation of synthetic_stream.h,
 * to the nanosecond: calls (elided ones included), total counted once per
 * outermost activation (recursion), self = total minus direct callees;
 * per thread, where a reused tid is a thread of its own; min/avg/max and
 * the histogram's p50/p99 (bucket midpoints, clamped), share of self time,
 * elided calls; the stats line in every format; compensated times per
 * call, every column of a row of one kind and adding up; on-CPU total and
 * self from scheduler switches, raw and compensated, and the table's
 * on-CPU columns only in a trace that has switches; the table fitted to a
 * narrow terminal by leaving columns out. */
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
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"*\tg\t7\t30\t30\t10\t4\t10\t20\t20\t0.103448\t*\t\t\t5\t30\t30\t\t20\t20\n"
		"*\tf\t3\t80\t50\t10\t26\t31\t40\t40\t0.172414\t*\t\t\t0\t80\t50\t\t70\t40\n"
		"*\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t*\t\t\t0\t50\t50\t\t50\t50\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t*\t\t\t0\t260\t160\t\t130\t40\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0 times=raw\n");
	free(text);
}

static void test_sort_total(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .sort = REPORT_SORT_TOTAL };
	char *text = run(&o, true);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t*\t\t\t0\t260\t160\t\t130\t40\n"
		"*\tf\t3\t80\t50\t10\t26\t31\t40\t40\t0.172414\t*\t\t\t0\t80\t50\t\t70\t40\n"
		"*\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t*\t\t\t0\t50\t50\t\t50\t50\n"
		"*\tg\t7\t30\t30\t10\t4\t10\t20\t20\t0.103448\t*\t\t\t5\t30\t30\t\t20\t20\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0 times=raw\n");
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
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"5\tg\t6\t20\t20\t20\t3\t20\t20\t20\t0.068966\t1\tB\tp\t5\t20\t20\t\t10\t10\n"
		"5\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t1\tA\tp\t0\t50\t50\t\t50\t50\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\t50\t40\t\t40\t30\n"
		"5\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\t30\t10\t\t30\t10\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\t10\t10\t\t10\t10\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\t260\t160\t\t130\t40\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0 times=raw\n");
	free(text);
}

static void test_by_thread(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .by_thread = true };
	char *text = run(&o, false);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"6\tg\t6\t20\t20\t20\t3\t20\t20\t20\t0.068966\t1\tB\tp\t5\t20\t20\t\t10\t10\n"
		"5\tr\t3\t50\t50\t10\t16\t31\t50\t50\t0.172414\t1\tA\tp\t0\t50\t50\t\t50\t50\n"
		"5\tf\t2\t50\t40\t10\t25\t10\t40\t40\t0.137931\t1\tA\tp\t0\t50\t40\t\t40\t30\n"
		"6\tf\t1\t30\t10\t30\t30\t30\t30\t30\t0.034483\t1\tB\tp\t0\t30\t10\t\t30\t10\n"
		"5\tg\t1\t10\t10\t10\t10\t10\t10\t10\t0.034483\t1\tA\tp\t0\t10\t10\t\t10\t10\n"
		"5\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.551724\t1\tA\tp\t0\t260\t160\t\t130\t40\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0 times=raw\n");
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
		       "       MAX  SHARE PROBE  FUNCTION\n"
		       "         7      ~30ns      ~30ns     ~10ns      ~4ns     ~10ns     ~20ns"
		       "     ~20ns  10.3%   67%  g\n"));
	/* g, f, r: their raw totals mostly probe cost; main 130 of 260 */
	assert_non_null(strstr(text,
			       "\n~ 4/4 rows mostly probe cost; record --budget=5%: real "
			       "times, exact counts\n"));
	assert_non_null(strstr(
		text,
		"\nstats: events=42 ringbuf_drops=0 unmatched_exits=0 "
		"inferred_exits=0 unfinished=0 depth_capped=0 "
		"max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0\n"
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
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"*\tg\t7\t10\t10\t0\t1\t0\t10\t10\t0.071429\t*\t\t\t5\t10\t10\t\t20\t20\n"
		"*\tf\t3\t10\t10\t0\t3\t0\t10\t10\t0.071429\t*\t\t\t0\t10\t10\t\t70\t40\n"
		"*\tr\t3\t0\t0\t0\t0\t0\t0\t0\t0.000000\t*\t\t\t0\t0\t0\t\t50\t50\n"
		"*\tmain\t1\t130\t120\t130\t130\t130\t130\t130\t0.857143\t*\t\t\t0\t130\t120\t\t130\t40\n"
		"# stats: events=42 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 "
		"depth_capped=0 max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=0 switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=10 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0 "
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
	assert_int_equal(sink.ops->probe_cost(sink.ctx, &(struct comp_cost){ 9, 18 }), 0);
	assert_non_null(fb = frame_builder__new(&sink));
	assert_int_equal(frame_builder__function(fb, &fn), 0);
	assert_int_equal(frame_builder__thread(fb, 1, 1, "T", "p", NULL, &t), 0);
	st_call(fb, t, 1, 100);
	st_ret(fb, t, 110); /* calibrates 10 ns */
	assert_int_equal(frame_builder__finish(fb, &st), -EPROTO);
	frame_builder__free(fb);
	report__free(r);
}

/* One thread with scheduler switches, off the CPU in brackets:
 *   main@0 { f@10 [12..18 sleeping] { g@20 [30..35 runnable] ..50 } ..60
 *            [100..150 sleeping]
 *            r@200 { r@210 { r@220..224 } [232..238 blocked] ..240 } ..250 } ..260
 * On-CPU, inclusive: g 25, f 50 - 6 - 5 = 39, the r's 4, 24 and 44,
 * main 260 - 6 - 5 - 50 - 6 = 193.  Self: g 25, f 39 - 25 = 14, r
 * 4 + (24 - 4) + (44 - 24) = 44, main 193 - 39 - 44 = 110.  The probe
 * cost is the shortest leaf, the innermost r: 4 ns. */
static char *run_sched(const struct report_opts *o)
{
	static const char *const names[] = { NULL, "main", "f", "g", "r" };
	static const struct {
		uint64_t ts;
		int fid; /* > 0 enter, 0 leave, < 0 a switch to state -fid - 1 */
	} ev[] = {
		{ 0, 1 },
		{ 10, 2 },
		{ 12, -1 - THREAD_SLEEPING },
		{ 18, -1 - THREAD_RUNNING },
		{ 20, 3 },
		{ 30, -1 - THREAD_RUNNABLE },
		{ 35, -1 - THREAD_RUNNING },
		{ 50, 0 },
		{ 60, 0 },
		{ 100, -1 - THREAD_SLEEPING },
		{ 150, -1 - THREAD_RUNNING },
		{ 200, 4 },
		{ 210, 4 },
		{ 220, 4 },
		{ 224, 0 },
		{ 232, -1 - THREAD_BLOCKED },
		{ 238, -1 - THREAD_RUNNING },
		{ 240, 0 },
		{ 250, 0 },
		{ 260, 0 },
	};
	struct trace_stats st = { .events = 20, .switches = 8 };
	struct report *r;
	struct frame_sink sink;
	struct frame_builder *fb;
	struct fb_thread *t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(report__new(o, &r), 0);
	sink = report__sink(r);
	if (sink.ops->probe_cost)
		assert_int_equal(sink.ops->probe_cost(sink.ctx, &(struct comp_cost){ 4, 8 }), 0);
	assert_non_null(fb = frame_builder__new(&sink));
	for (uint32_t id = 1; id <= 4; id++) {
		struct trace_function fn = { .id = id, .name = names[id] };

		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 1, 5, "A", "p", NULL, &t), 0);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		if (ev[i].fid > 0)
			st_call(fb, t, (uint32_t)ev[i].fid, ev[i].ts);
		else if (!ev[i].fid)
			st_ret(fb, t, ev[i].ts);
		else
			assert_int_equal(frame_builder__sched(fb, t, ev[i].ts,
							      (enum thread_state)(-ev[i].fid - 1)),
					 0);
	}
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
	assert_int_equal(report__print(r, f), 0);
	fclose(f);
	report__free(r);
	return text;
}

#define SCHED_STATS                                                                                   \
	"events=20 ringbuf_drops=0 unmatched_exits=0 inferred_exits=0 unfinished=0 depth_capped=0 "   \
	"max_depth_dropped=0 short_dropped=0 gated_out=0 ignored_sleds=0 coverage_gaps=0 switches=8 " \
	"switch_drops=0 switches_inferred=0 no_sched=0 wakeups=0 wakeups_linked=0 wakeups_from_interrupts=0 wakeups_from_outside=0 wakeups_uninterruptible=0 spawns_linked=0 handoffs=0 handoffs_linked=0 cause_drops=0 no_causes=0 costs=0 cost_drops=0 probe_cost_ns=4 probe_entry_ns=0 probe_exit_ns=0 budget_ppm=0 budget_unprobed=0 program_cpu_ns=0 untraced_cpu_ns=0"

/* The last two columns: cpu_total_ns, cpu_self_ns; the others as without
 * switches (wall time). */
static void test_cpu_raw(void **state)
{
	struct report_opts o = { .format = REPORT_TSV, .sort = REPORT_SORT_NAME };
	char *text = run_sched(&o);

	(void)state;
	assert_string_equal(
		text,
		"tid\tfunction\tcalls\ttotal_ns\tself_ns\tmin_ns\tavg_ns\tp50_ns\tp99_ns\tmax_ns\tshare\tpid\tthread\tprocess\telided\tcpu_total_ns\tcpu_self_ns\tvalues\tprobe_ns\tprobe_self_ns\n"
		"*\tf\t1\t50\t20\t50\t50\t50\t50\t50\t0.076923\t*\t\t\t0\t39\t14\t\t12\t8\n"
		"*\tg\t1\t30\t30\t30\t30\t30\t30\t30\t0.115385\t*\t\t\t0\t25\t25\t\t4\t4\n"
		"*\tmain\t1\t260\t160\t260\t260\t260\t260\t260\t0.615385\t*\t\t\t0\t193\t110\t\t44\t12\n"
		"*\tr\t3\t50\t50\t4\t16\t31\t50\t50\t0.192308\t*\t\t\t0\t44\t44\t\t20\t20\n"
		"# stats: " SCHED_STATS " times=raw\n");
	free(text);
}

/* The number in field i (from 0) of a CSV line without quotes. */
static unsigned long long csv_field(const char *line, int i)
{
	while (i--)
		line = strchr(line, ',') + 1;
	return strtoull(line, NULL, 10);
}

/* Each call's on-CPU figures less the same hits as its wall ones, 4 ns
 * each: f 3 in total, 2 in self (39 - 12, 14 - 8); g 1 (25 - 4); the r's
 * 1, 3 and 5 in total and 1, 2, 2 in self (the outermost 44 - 20;
 * 0 + 12 + 12); main 11 and 3 (193 - 44, 110 - 12). */
static void test_cpu_compensated(void **state)
{
	struct report_opts o = { .format = REPORT_CSV,
				 .sort = REPORT_SORT_NAME,
				 .times = REPORT_TIMES_COMPENSATED };
	char *text = run_sched(&o);
	static const struct report_row want[] = {
		{ .name = "f",
		  .total_ns = 38,
		  .self_ns = 12,
		  .cpu_total_ns = 27,
		  .cpu_self_ns = 6 },
		{ .name = "g",
		  .total_ns = 26,
		  .self_ns = 26,
		  .cpu_total_ns = 21,
		  .cpu_self_ns = 21 },
		{ .name = "main",
		  .total_ns = 216,
		  .self_ns = 148,
		  .cpu_total_ns = 149,
		  .cpu_self_ns = 98 },
		{ .name = "r",
		  .total_ns = 30,
		  .self_ns = 30,
		  .cpu_total_ns = 24,
		  .cpu_self_ns = 24 },
	};
	const char *line = strchr(text, '\n') + 1;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		size_t n = strlen(want[i].name);

		assert_true(!strncmp(line, "*,", 2) && !strncmp(line + 2, want[i].name, n) &&
			    line[2 + n] == ',');
		assert_int_equal(csv_field(line, 3), want[i].total_ns);
		assert_int_equal(csv_field(line, 4), want[i].self_ns);
		assert_int_equal(csv_field(line, 15), want[i].cpu_total_ns);
		assert_int_equal(csv_field(line, 16), want[i].cpu_self_ns);
		line = strchr(line, '\n') + 1;
	}
	assert_string_equal(line, "# stats: " SCHED_STATS " times=compensated\n");
	free(text);
}

/* The table shows CPU, CPU-SELF and WAIT (self less on-CPU self) when
 * the trace has switches; --sort=wait puts main's 50 ns of sleep first,
 * and f and r (6 ns each) before g (5). */
static void test_cpu_table(void **state)
{
	struct report_opts o = { .sort = REPORT_SORT_WAIT };
	char *text = run_sched(&o);
	const char *rows[] = { "main", "f", "r", "g" };
	const char *line = strchr(strchr(text, '\n') + 1, '\n') + 1;

	(void)state;
	assert_non_null(strstr(text,
			       "\n     CALLS      TOTAL       SELF        CPU   CPU-SELF "
			       "      WAIT       MIN"));
	assert_true(!strncmp(
		line, "         1      260ns      160ns      193ns      110ns       50ns ", 66));
	for (size_t i = 0; i < 4; i++) {
		size_t n = strcspn(line, "\n");

		assert_true(n > strlen(rows[i]));
		assert_memory_equal(line + n - strlen(rows[i]), rows[i], strlen(rows[i]));
		line += n + 1;
	}
	free(text);
	o.sort = REPORT_SORT_CPU_SELF;
	text = run_sched(&o);
	line = strchr(strchr(text, '\n') + 1, '\n') + 1;
	assert_true(!strncmp(line + strcspn(line, "\n") - 4, "main", 4));
	free(text);
}

/* A narrow terminal: columns are left out, P50 first, then MIN, P99, MAX,
 * CPU and AVG, until every line fits with 24 columns for names; PROBE
 * stays (the share of a row's time that is probe cost). */
static void test_table_fits(void **state)
{
	static const struct {
		uint32_t width;
		bool sched;
		const char *head;
	} cases[] = {
		{ 0, true,
		  "     CALLS      TOTAL       SELF        CPU   CPU-SELF       WAIT       MIN       AVG "
		  "      P50       P99       MAX  SHARE PROBE  FUNCTION\n" },
		{ 120, true,
		  "     CALLS      TOTAL       SELF        CPU   CPU-SELF       WAIT       AVG  SHARE "
		  "PROBE  FUNCTION\n" },
		{ 100, true,
		  "     CALLS      TOTAL       SELF   CPU-SELF       WAIT  SHARE PROBE  FUNCTION\n" },
		{ 120, false,
		  "     CALLS      TOTAL       SELF       MIN       AVG       P99       MAX  SHARE PROBE  "
		  "FUNCTION\n" },
		{ 80, false, "     CALLS      TOTAL       SELF  SHARE PROBE  FUNCTION\n" },
		{ 40, false, "     CALLS      TOTAL       SELF  SHARE PROBE  FUNCTION\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct report_opts o = { .width = cases[i].width };
		char *text = cases[i].sched ? run_sched(&o) : run(&o, false);
		const char *line = strchr(text, '\n') + 1;

		assert_memory_equal(line, cases[i].head, strlen(cases[i].head));
		for (; *line && strncmp(line, "\nstats:", 7); line = strchr(line, '\n') + 1)
			if (cases[i].width >= 80 && strcspn(line, "\n") > cases[i].width)
				fail_msg("wider than %u: %.*s", cases[i].width,
					 (int)strcspn(line, "\n"), line);
		free(text);
	}
}

/* report__row carries them for diff. */
static void test_cpu_row(void **state)
{
	struct report_opts o = { .sort = REPORT_SORT_NAME };
	struct report *r;
	struct frame_sink sink;
	struct report_row row;
	bool seen = false;

	(void)state;
	assert_int_equal(report__new(&o, &r), 0);
	sink = report__sink(r);
	play_stream(&sink, false);
	for (size_t i = 0; i < report__nrows(r); i++) {
		report__row(r, i, &row);
		/* no switches: on-CPU is wall */
		assert_int_equal(row.cpu_total_ns, row.total_ns);
		assert_int_equal(row.cpu_self_ns, row.self_ns);
		seen |= !strcmp(row.name, "main") && row.self_ns == 160;
	}
	assert_true(seen);
	report__free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_function),
		cmocka_unit_test(test_sort_total),
		cmocka_unit_test(test_by_thread_reused_tid),
		cmocka_unit_test(test_by_thread),
		cmocka_unit_test(test_table_stats),
		cmocka_unit_test(test_compensated),
		cmocka_unit_test(test_columns_add_up),
		cmocka_unit_test(test_table_says_times),
		cmocka_unit_test(test_cost_must_match),
		cmocka_unit_test(test_cpu_raw),
		cmocka_unit_test(test_cpu_compensated),
		cmocka_unit_test(test_cpu_table),
		cmocka_unit_test(test_cpu_row),
		cmocka_unit_test(test_table_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
