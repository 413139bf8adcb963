// SPDX-License-Identifier: MIT
/* test_frames.c: the frame builder's contract on hand-made streams: the
 * order of sink calls, thread slots keyed by (pid, tid) and retired when a
 * thread ends (a reused tid is a new thread with its own index and name),
 * processes likewise, finish() closing what is open, and the counting
 * contract (the builder alone counts inferred, unfinished and unmatched). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sink_log.h"

static void test_enter_leave_order(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { .events = 9 };
	struct fb_thread *t;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 10, 11, "main", "app", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 100, 0x7f00), 0);
	assert_int_equal(frame_builder__depth(t), 1);
	assert_int_equal(frame_builder__enter(fb, t, 2, 110, 0x7e00), 0);
	assert_int_equal(frame_builder__top(t)->fid, 2);
	assert_int_equal(frame_builder__top(t)->sp, 0x7e00);
	assert_int_equal(frame_builder__leave(fb, t, 120, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__leave(fb, t, 130, FRAME_TAIL), 0);
	assert_null(frame_builder__top(t));
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_int_equal(frame_builder__finish(fb, &st), -EALREADY);
	assert_string_equal(log.buf,
			    "T 0 10/11 p0 main\n"
			    "> 0 1 1 @100\n"
			    "> 0 2 2 @110\n"
			    "< 0 2 2 @110-120 ret\n"
			    "< 0 1 1 @100-130 tail\n"
			    "E 0\n"
			    "S events=9 probe_cost_ns=10\n" /* the leaf, not main */
			    "F\n");
	frame_builder__free(fb);
}

/* A leaf call measured before the builder (the kernel's --min-duration
 * dropped it) calibrates the probe cost when it is the shortest; a longer
 * one does not displace the builder's own. */
static void test_leaf_from_kernel(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { 0 };
	struct fb_thread *t;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 10, 11, "main", "app", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 100, 0x7f00), 0);
	assert_int_equal(frame_builder__leave(fb, t, 150, FRAME_RETURNED), 0);
	frame_builder__leaf(fb, 70);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_int_equal(st.probe_cost_ns, 50);
	frame_builder__free(fb);

	st = (struct trace_stats){ 0 };
	sink = sink_log__sink(&log);
	fb = frame_builder__new(&sink);
	assert_int_equal(frame_builder__thread(fb, 10, 11, "main", "app", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 100, 0x7f00), 0);
	assert_int_equal(frame_builder__leave(fb, t, 150, FRAME_RETURNED), 0);
	frame_builder__leaf(fb, 30);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_int_equal(st.probe_cost_ns, 30);
	frame_builder__free(fb);
}

/* Same tid in two processes: two threads.  Same (pid, tid) again after the
 * thread ended: a third, with its own name, in the same process.  A process
 * ends with its main thread (tid == pid), not with the others. */
static void test_thread_keys(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct fb_thread *a, *b, *a2, *c, *x;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 10, 11, "a", "app", NULL, &a), 0);
	assert_int_equal(frame_builder__thread(fb, 20, 11, "b", "other", NULL, &b), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 12, "c", "app", "app -x", &c), 0);
	assert_ptr_not_equal(a, b);
	assert_ptr_equal(frame_builder__find(fb, 10, 11), a);
	assert_ptr_equal(frame_builder__find(fb, 20, 11), b);
	assert_null(frame_builder__find(fb, 30, 11));
	assert_int_equal(frame_builder__thread(fb, 10, 11, "ignored", "app", NULL, &x), 0);
	assert_ptr_equal(x, a);
	assert_int_equal(frame_builder__end_thread(fb, a, 50), 0);
	assert_null(frame_builder__find(fb, 10, 11));
	assert_int_equal(frame_builder__thread(fb, 10, 11, "a2", "app", NULL, &a2), 0);
	assert_ptr_not_equal(a2, a);
	assert_int_equal(frame_builder__info(a2)->index, 3);
	assert_string_equal(frame_builder__info(a2)->name, "a2");
	assert_string_equal(frame_builder__info(c)->cmdline, "app -x");
	assert_null(frame_builder__info(a)->cmdline);
	/* a thread of process 20 ends: the process goes on */
	assert_int_equal(frame_builder__end_thread(fb, b, 60), 0);
	assert_int_equal(frame_builder__thread(fb, 20, 13, "d", "other", NULL, &x), 0);
	/* its main thread ends: pid 20 is a new process after */
	assert_int_equal(frame_builder__thread(fb, 20, 20, "e", "other", NULL, &x), 0);
	assert_int_equal(frame_builder__end_thread(fb, x, 70), 0);
	assert_int_equal(frame_builder__thread(fb, 20, 14, "f", "reborn", NULL, &x), 0);
	assert_int_equal(frame_builder__nthreads(fb), 7);
	assert_int_equal(frame_builder__finish(fb, NULL), 0);
	assert_string_equal(log.buf,
			    "T 0 10/11 p0 a\n"
			    "T 1 20/11 p1 b\n"
			    "T 2 10/12 p0 c\n"
			    "E 0\n"
			    "T 3 10/11 p0 a2\n"
			    "E 1\n"
			    "T 4 20/13 p1 d\n"
			    "T 5 20/20 p1 e\n"
			    "E 5\n"
			    "T 6 20/14 p2 f\n"
			    "E 2\n"
			    "E 3\n"
			    "E 4\n"
			    "E 6\n"
			    "S\n"
			    "F\n");
	frame_builder__free(fb);
}

/* A thread that ends inside calls: they end with it, as unfinished, at
 * the exit's time; the new thread on that tid starts from an empty stack. */
static void test_end_thread_reused_tid(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { 0 };
	struct fb_thread *t, *u;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 10, 11, "old", "app", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 100, 0), 0);
	assert_int_equal(frame_builder__enter(fb, t, 2, 110, 0), 0);
	assert_int_equal(frame_builder__end_thread(fb, t, 150), 0);
	assert_int_equal(frame_builder__end_thread(fb, t, 160), 0); /* twice: no-op */
	assert_int_equal(frame_builder__thread(fb, 10, 11, "new", "app", NULL, &u), 0);
	assert_int_equal(frame_builder__depth(u), 0);
	assert_int_equal(frame_builder__enter(fb, u, 3, 200, 0), 0);
	assert_int_equal(frame_builder__leave(fb, u, 210, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_string_equal(log.buf,
			    "T 0 10/11 p0 old\n"
			    "> 0 1 1 @100\n"
			    "> 0 2 2 @110\n"
			    "< 0 2 2 @110-150 unfinished\n"
			    "< 0 1 1 @100-150 unfinished\n"
			    "E 0\n"
			    "T 1 10/11 p0 new\n"
			    "> 1 1 3 @200\n"
			    "< 1 1 3 @200-210 ret\n"
			    "E 1\n"
			    "S unfinished=2 probe_cost_ns=10\n" /* unfinished: not a measure */
			    "F\n");
	assert_int_equal(st.unfinished, 2);
	frame_builder__free(fb);
}

/* finish() closes what is open at its thread's last timestamp, and adds
 * the builder's own counts to the producer's (never doubles them). */
static void test_finish_and_counting(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { .events = 40, .unmatched_exits = 5, .ringbuf_drops = 3 };
	struct fb_thread *a, *b;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 1, 1, "a", "p", NULL, &a), 0);
	assert_int_equal(frame_builder__add_thread(fb, 1, 2, "b", "p", NULL, &b), 0);
	assert_int_equal(frame_builder__leave(fb, a, 5, FRAME_RETURNED), 0); /* unmatched */
	assert_int_equal(frame_builder__enter(fb, a, 1, 10, 0), 0);
	assert_int_equal(frame_builder__enter(fb, a, 2, 20, 0), 0);
	assert_int_equal(frame_builder__leave(fb, a, 30, FRAME_INFERRED), 0);
	assert_int_equal(frame_builder__enter(fb, a, 3, 40, 0), 0);
	assert_int_equal(frame_builder__enter(fb, b, 4, 15, 0), 0);
	assert_int_equal(frame_builder__elided(fb, b, 4, 7, 700), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_string_equal(log.buf,
			    "T 0 1/1 p0 a\n"
			    "T 1 1/2 p0 b\n"
			    "> 0 1 1 @10\n"
			    "> 0 2 2 @20\n"
			    "< 0 2 2 @20-30 inferred\n"
			    "> 0 2 3 @40\n"
			    "> 1 1 4 @15\n"
			    "X 1 4 7 700\n"
			    "< 0 2 3 @40-40 unfinished\n"
			    "< 0 1 1 @10-40 unfinished\n"
			    "E 0\n"
			    "< 1 1 4 @15-15 unfinished\n"
			    "E 1\n"
			    "S events=40 ringbuf_drops=3 unmatched_exits=6 inferred_exits=1"
			    " unfinished=3\n"
			    "F\n");
	frame_builder__free(fb);
}

/* A call timed after its thread left the CPU proves it back there (the
 * kernel left the switch in unreported): resume() passes a Running switch
 * on at the call's time and counts it; an entry timed before the switch
 * out (one --min-duration held back) proves nothing, nor does a thread
 * already running. */
static void test_resume_inferred(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { .switches = 1 };
	struct fb_thread *t;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 1, 1, "a", "p", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 10, 0), 0);
	assert_int_equal(frame_builder__sched(fb, t, 20, THREAD_SLEEPING), 0);
	assert_int_equal(frame_builder__resume(fb, t, 15), 0); /* held back */
	assert_int_equal(frame_builder__enter(fb, t, 2, 15, 0), 0);
	assert_int_equal(frame_builder__leave(fb, t, 18, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__resume(fb, t, 50), 0);
	assert_int_equal(frame_builder__enter(fb, t, 3, 50, 0), 0);
	assert_int_equal(frame_builder__resume(fb, t, 60), 0);
	assert_int_equal(frame_builder__leave(fb, t, 60, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__leave(fb, t, 70, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_string_equal(log.buf,
			    "T 0 1/1 p0 a\n"
			    "> 0 1 1 @10\n"
			    "W 0 Sleeping @20\n"
			    "> 0 2 2 @15\n"
			    "< 0 2 2 @15-18 ret\n"
			    "W 0 Running @50\n"
			    "> 0 2 3 @50\n"
			    "< 0 2 3 @50-60 ret\n"
			    "< 0 1 1 @10-70 ret\n"
			    "E 0\n"
			    "S switches=1 switches_inferred=1 probe_cost_ns=3\n"
			    "F\n");
	frame_builder__free(fb);
}

/* Causes (frames.h): a frame's id is its thread's uid and ordinal; the
 * frame a cause names is the causer's innermost at that moment, given to
 * the other thread's next frame only; a cause from a thread with nothing
 * open gives none, and clears an older one. */
static void test_causes(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { 0 };
	struct fb_thread *a, *b;
	const struct frame *f;
	uint64_t cause, flow;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 1, 1, "a", "p", NULL, &a), 0);
	assert_int_equal(frame_builder__thread(fb, 1, 2, "b", "p", NULL, &b), 0);
	assert_int_equal(frame_builder__cause(fb, a, b, 5, CAUSE_WAKEUP), 0); /* nothing open */
	assert_int_equal(frame_builder__pending(b), CAUSE_NONE);
	assert_int_equal(frame_builder__enter(fb, a, 1, 10, 0), 0);
	assert_int_equal(frame_builder__enter(fb, a, 2, 11, 0), 0);
	assert_int_equal(frame_builder__cause(fb, a, b, 12, CAUSE_WAKEUP), 1);
	frame_builder__pending_cause(b, &cause, &flow);
	assert_true(cause == FRAME_ID(0, 2) && flow == 1);
	assert_int_equal(frame_builder__enter(fb, b, 3, 13, 0), 0);
	f = frame_builder__top(b);
	assert_true(f->id == FRAME_ID(1, 1) && f->cause == FRAME_ID(0, 2));
	assert_int_equal(f->cause_kind, CAUSE_WAKEUP);
	assert_int_equal(frame_builder__enter(fb, b, 3, 14, 0), 0);
	assert_true(frame_builder__top(b)->cause == 0); /* the next frame only */
	assert_int_equal(frame_builder__cause(fb, a, b, 15, CAUSE_WAKEUP), 1);
	frame_builder__uncaused(b);
	assert_int_equal(frame_builder__enter(fb, b, 3, 16, 0), 0);
	assert_true(frame_builder__top(b)->cause == 0);
	assert_int_equal(frame_builder__depth_of(a, FRAME_ID(0, 1)), 1);
	assert_int_equal(frame_builder__depth_of(a, FRAME_ID(1, 1)), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
}

/* add_thread: a second live thread for one (pid, tid) (two tracks of one
 * tid in a file); the first stays usable by its holder, find() gives the
 * newer one, and ending the older does not unmap the newer. */
static void test_add_thread_shadows(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct fb_thread *a, *b;

	(void)state;
	assert_int_equal(frame_builder__add_thread(fb, 1, 7, "a", "p", NULL, &a), 0);
	assert_int_equal(frame_builder__add_thread(fb, 1, 7, "b", "p", NULL, &b), 0);
	assert_ptr_equal(frame_builder__find(fb, 1, 7), b);
	assert_int_equal(frame_builder__enter(fb, a, 1, 10, 0), 0);
	assert_int_equal(frame_builder__end_thread(fb, a, 20), 0);
	assert_ptr_equal(frame_builder__find(fb, 1, 7), b);
	assert_int_equal(frame_builder__finish(fb, NULL), 0);
	assert_string_equal(log.buf,
			    "T 0 1/7 p0 a\n"
			    "T 1 1/7 p0 b\n"
			    "> 0 1 1 @10\n"
			    "< 0 1 1 @10-20 unfinished\n"
			    "E 0\n"
			    "E 1\n"
			    "S unfinished=1\n"
			    "F\n");
	frame_builder__free(fb);
}

/* Deep stacks grow; every frame below the top keeps its values. */
static void test_deep_stack(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { 0 };
	struct fb_thread *t;

	(void)state;
	assert_int_equal(frame_builder__thread(fb, 1, 1, "t", "p", NULL, &t), 0);
	for (uint32_t i = 0; i < 5000; i++)
		assert_int_equal(frame_builder__enter(fb, t, i + 1, i, 100000 - i), 0);
	for (uint32_t i = 5000; i > 0; i--) {
		assert_int_equal(frame_builder__top(t)->fid, i);
		assert_int_equal(frame_builder__top(t)->begin_ns, i - 1);
		log.len = 0; /* the log is too small for all of them */
		assert_int_equal(frame_builder__leave(fb, t, 10000, FRAME_RETURNED), 0);
	}
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	assert_int_equal(st.unfinished + st.inferred_exits + st.unmatched_exits, 0);
	frame_builder__free(fb);
}

/* The tally record's word on probe cost reads: per function, calls ended
 * and their direct children, whatever way they ended; function 300 grows
 * the arrays past their first size. */
static void test_tally(void **state)
{
	struct sink_log log;
	struct frame_sink sink = sink_log__sink(&log);
	struct frame_builder *fb = frame_builder__new(&sink);
	struct trace_stats st = { 0 };
	const uint64_t *calls, *children;
	struct fb_thread *t;

	(void)state;
	frame_builder__tally(fb);
	assert_int_equal(frame_builder__thread(fb, 10, 11, "main", "app", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 100, 0x7f00), 0);
	for (uint64_t i = 0; i < 3; i++) {
		assert_int_equal(frame_builder__enter(fb, t, 2, 110 + 10 * i, 0x7e00), 0);
		assert_int_equal(frame_builder__leave(fb, t, 115 + 10 * i, FRAME_RETURNED), 0);
	}
	assert_int_equal(frame_builder__enter(fb, t, 300, 150, 0x7e00), 0);
	assert_int_equal(frame_builder__leave(fb, t, 160, FRAME_INFERRED), 0);
	assert_int_equal(frame_builder__leave(fb, t, 170, FRAME_RETURNED), 0);
	assert_true(frame_builder__tallies(fb, &calls, &children) > 300);
	assert_int_equal(calls[1], 1);
	assert_int_equal(children[1], 4);
	assert_int_equal(calls[2], 3);
	assert_int_equal(children[2], 0);
	assert_int_equal(calls[300], 1);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enter_leave_order),
		cmocka_unit_test(test_leaf_from_kernel),
		cmocka_unit_test(test_thread_keys),
		cmocka_unit_test(test_end_thread_reused_tid),
		cmocka_unit_test(test_finish_and_counting),
		cmocka_unit_test(test_resume_inferred),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_add_thread_shadows),
		cmocka_unit_test(test_deep_stack),
		cmocka_unit_test(test_tally),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
