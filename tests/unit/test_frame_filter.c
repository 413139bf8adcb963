// SPDX-License-Identifier: MIT
/* test_frame_filter.c: --max-depth and --min-duration as a frame_sink on
 * hand-made streams: exactly which frames pass, in which order and at
 * which depth, and the exact counts added to the stats; every scheduler
 * switch passes, in time order with the frames that pass. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/frame_filter.h"
#include "sink_log.h"

struct rig {
	struct sink_log log;
	struct frame_filter *ff;
	struct frame_builder *fb;
};

static void rig_open(struct rig *r, uint32_t max_depth, uint64_t min_ns)
{
	struct frame_sink down = sink_log__sink(&r->log), up;
	struct frame_filter_opts o = { .max_depth = max_depth, .min_duration_ns = min_ns };

	assert_int_equal(frame_filter__new(&down, &o, &r->ff), 0);
	up = frame_filter__sink(r->ff);
	assert_non_null(r->fb = frame_builder__new(&up));
}

static void rig_close(struct rig *r, struct trace_stats *st)
{
	assert_int_equal(frame_builder__finish(r->fb, st), 0);
	frame_builder__free(r->fb);
	frame_filter__free(r->ff);
}

static void enter(struct rig *r, struct fb_thread *t, uint32_t fid, uint64_t ts)
{
	assert_int_equal(frame_builder__enter(r->fb, t, fid, ts, 0), 0);
}

static void leave(struct rig *r, struct fb_thread *t, uint64_t ts)
{
	assert_int_equal(frame_builder__leave(r->fb, t, ts, FRAME_RETURNED), 0);
}

/* a -> b -> c -> d, twice, with max depth 2: c and d never pass, four
 * calls are counted, and what passes keeps its times. */
static void test_max_depth(void **state)
{
	struct rig r;
	struct trace_stats st = { .max_depth_dropped = 1 }; /* the producer's own */
	struct fb_thread *t;

	(void)state;
	rig_open(&r, 2, 0);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "t", "p", NULL, &t), 0);
	for (uint64_t k = 0; k < 2; k++) {
		uint64_t b = k * 100;

		enter(&r, t, 1, b);
		enter(&r, t, 2, b + 1);
		enter(&r, t, 3, b + 2);
		enter(&r, t, 4, b + 3);
		leave(&r, t, b + 4);
		leave(&r, t, b + 5);
		leave(&r, t, b + 6);
		leave(&r, t, b + 7);
	}
	rig_close(&r, &st);
	assert_string_equal(r.log.buf,
			    "T 0 1/1 p0 t\n"
			    "> 0 1 1 @0\n"
			    "> 0 2 2 @1\n"
			    "< 0 2 2 @1-6 ret\n"
			    "< 0 1 1 @0-7 ret\n"
			    "> 0 1 1 @100\n"
			    "> 0 2 2 @101\n"
			    "< 0 2 2 @101-106 ret\n"
			    "< 0 1 1 @100-107 ret\n"
			    "E 0\n"
			    "S max_depth_dropped=5 probe_cost_ns=1\n"
			    "F\n");
}

/* min 10 ns: b (4 ns) is dropped, c (24 ns) passes - and with it a, which
 * is held back until c's end proves it lasted long enough; d is still
 * pending when its thread ends and is shorter than 10 ns: dropped. */
static void test_min_duration(void **state)
{
	struct rig r;
	struct trace_stats st = { 0 };
	struct fb_thread *t;

	(void)state;
	rig_open(&r, 0, 10);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "t", "p", NULL, &t), 0);
	enter(&r, t, 1, 0);
	enter(&r, t, 2, 1);
	leave(&r, t, 5);
	enter(&r, t, 3, 6);
	leave(&r, t, 30);
	leave(&r, t, 40);
	enter(&r, t, 4, 50);
	assert_int_equal(frame_builder__end_thread(r.fb, t, 55), 0);
	rig_close(&r, &st);
	assert_string_equal(
		r.log.buf,
		"T 0 1/1 p0 t\n"
		"> 0 1 1 @0\n"
		"> 0 2 3 @6\n"
		"< 0 2 3 @6-30 ret\n"
		"< 0 1 1 @0-40 ret\n"
		"E 0\n"
		"S unfinished=1 short_dropped=2 probe_cost_ns=4\n" /* from dropped calls too */
		"F\n");
	assert_int_equal(r.log.st.short_dropped, 2); /* what the sink below gets */
}

/* Two threads interleaved keep separate pending state; a reused tid
 * (here the main thread's: a new process) starts with nothing pending;
 * both limits at once count separately. */
static void test_threads_and_both_limits(void **state)
{
	struct rig r;
	struct trace_stats st = { 0 };
	struct fb_thread *a, *b, *a2;

	(void)state;
	rig_open(&r, 1, 10);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "a", "p", NULL, &a), 0);
	assert_int_equal(frame_builder__thread(r.fb, 1, 2, "b", "p", NULL, &b), 0);
	enter(&r, a, 1, 0);
	enter(&r, b, 2, 2);
	enter(&r, a, 3, 3); /* deeper than 1 */
	leave(&r, a, 4);
	leave(&r, b, 5);  /* 3 ns: dropped */
	leave(&r, a, 20); /* 20 ns: passes */
	assert_int_equal(frame_builder__end_thread(r.fb, a, 21), 0);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "a2", "p", NULL, &a2), 0);
	enter(&r, a2, 4, 30);
	leave(&r, a2, 45);
	rig_close(&r, &st);
	assert_string_equal(r.log.buf,
			    "T 0 1/1 p0 a\n"
			    "T 1 1/2 p0 b\n"
			    "> 0 1 1 @0\n"
			    "< 0 1 1 @0-20 ret\n"
			    "E 0\n"
			    "T 2 1/1 p1 a2\n"
			    "> 2 1 4 @30\n"
			    "< 2 1 4 @30-45 ret\n"
			    "E 1\n"
			    "E 2\n"
			    "S max_depth_dropped=1 short_dropped=1 probe_cost_ns=1\n"
			    "F\n");
}

static void sw(struct rig *r, struct fb_thread *t, enum thread_state s, uint64_t ts)
{
	assert_int_equal(frame_builder__sched(r->fb, t, ts, s), 0);
}

/* min 10 ns: switches that come while a frame is pending wait for it to
 * pass (a, c) or be dropped (b, d), then go on in time order; those that
 * come while nothing is pending go on at once. */
static void test_switches_min_duration(void **state)
{
	struct rig r;
	struct trace_stats st = { 0 };
	struct fb_thread *t;

	(void)state;
	rig_open(&r, 0, 10);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "t", "p", NULL, &t), 0);
	enter(&r, t, 1, 0);
	sw(&r, t, THREAD_SLEEPING, 2);
	sw(&r, t, THREAD_RUNNING, 8);
	enter(&r, t, 2, 9);
	leave(&r, t, 12); /* b: 3 ns, dropped; a passes (12 ns so far) */
	sw(&r, t, THREAD_SLEEPING, 15);
	sw(&r, t, THREAD_RUNNING, 20);
	enter(&r, t, 3, 21);
	sw(&r, t, THREAD_RUNNABLE, 22);
	sw(&r, t, THREAD_RUNNING, 23);
	leave(&r, t, 40);
	leave(&r, t, 50);
	enter(&r, t, 4, 60);
	sw(&r, t, THREAD_BLOCKED, 61);
	assert_int_equal(frame_builder__end_thread(r.fb, t, 65), 0);
	rig_close(&r, &st);
	assert_string_equal(r.log.buf,
			    "T 0 1/1 p0 t\n"
			    "> 0 1 1 @0\n"
			    "W 0 Sleeping @2\n"
			    "W 0 Running @8\n"
			    "W 0 Sleeping @15\n"
			    "W 0 Running @20\n"
			    "> 0 2 3 @21\n"
			    "W 0 Runnable @22\n"
			    "W 0 Running @23\n"
			    "< 0 2 3 @21-40 ret\n"
			    "< 0 1 1 @0-50 ret\n"
			    "W 0 Uninterruptible Sleep @61\n"
			    "E 0\n"
			    "S unfinished=1 short_dropped=2 probe_cost_ns=3\n"
			    "F\n");
}

/* max depth 1 alone: nothing is ever pending, so a switch inside a call
 * too deep to pass goes on at once. */
static void test_switches_max_depth(void **state)
{
	struct rig r;
	struct trace_stats st = { 0 };
	struct fb_thread *t;

	(void)state;
	rig_open(&r, 1, 0);
	assert_int_equal(frame_builder__thread(r.fb, 1, 1, "t", "p", NULL, &t), 0);
	enter(&r, t, 1, 0);
	enter(&r, t, 2, 1);
	sw(&r, t, THREAD_STOPPED, 2);
	sw(&r, t, THREAD_RUNNING, 3);
	leave(&r, t, 4);
	leave(&r, t, 5);
	rig_close(&r, &st);
	assert_string_equal(r.log.buf,
			    "T 0 1/1 p0 t\n"
			    "> 0 1 1 @0\n"
			    "W 0 Stopped @2\n"
			    "W 0 Running @3\n"
			    "< 0 1 1 @0-5 ret\n"
			    "E 0\n"
			    "S max_depth_dropped=1 probe_cost_ns=3\n"
			    "F\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_depth),
		cmocka_unit_test(test_min_duration),
		cmocka_unit_test(test_threads_and_both_limits),
		cmocka_unit_test(test_switches_min_duration),
		cmocka_unit_test(test_switches_max_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
