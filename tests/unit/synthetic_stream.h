/* SPDX-License-Identifier: MIT */
/* synthetic_stream.h: one hand-made trace for the aggregating sinks (call
 * tree, report), small enough that every expected number is worked out by
 * hand in the tests.  Functions: 1 main, 2 f, 3 g, 4 r.
 *   thread A (1/5): main@0 { f@10 { g@20..30 } ..50  f@60..70
 *                            r@200 { r@210 { r@220..230 } ..240 } ..250 } ..260
 *   thread B: f@300 { g@305..325 } ..330, plus 5 calls of g (500 ns)
 *             elided by a writer.  B is 1/6, or 1/5 again after A ended
 *             (reuse_tid). */
#ifndef SLEDTRACE_TEST_SYNTHETIC_STREAM_H
#define SLEDTRACE_TEST_SYNTHETIC_STREAM_H

#include <stdbool.h>

#include "model/frames.h"

static void st_call(struct frame_builder *fb, struct fb_thread *t, uint32_t fid, uint64_t b)
{
	assert_int_equal(frame_builder__enter(fb, t, fid, b, 0), 0);
}

static void st_ret(struct frame_builder *fb, struct fb_thread *t, uint64_t e)
{
	assert_int_equal(frame_builder__leave(fb, t, e, FRAME_RETURNED), 0);
}

static void play_stream(const struct frame_sink *sink, bool reuse_tid)
{
	static const char *const names[] = { NULL, "main", "f", "g", "r" };
	struct frame_builder *fb = frame_builder__new(sink);
	struct trace_stats st = { .events = 42 };
	struct fb_thread *a, *b;

	assert_non_null(fb);
	/* as a trace reader does: the cost the builder calibrates below (the
	 * leaves' shortest duration, 10 ns) is handed over first */
	if (sink->ops->probe_cost)
		assert_int_equal(sink->ops->probe_cost(sink->ctx, &(struct comp_cost){ 10, 20 }),
				 0);
	for (uint32_t id = 1; id <= 4; id++) {
		struct trace_function fn = { .id = id, .name = names[id] };

		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 1, 5, "A", "p", NULL, &a), 0);
	st_call(fb, a, 1, 0);
	st_call(fb, a, 2, 10);
	st_call(fb, a, 3, 20);
	st_ret(fb, a, 30);
	st_ret(fb, a, 50);
	st_call(fb, a, 2, 60);
	st_ret(fb, a, 70);
	st_call(fb, a, 4, 200);
	st_call(fb, a, 4, 210);
	st_call(fb, a, 4, 220);
	st_ret(fb, a, 230);
	st_ret(fb, a, 240);
	st_ret(fb, a, 250);
	st_ret(fb, a, 260);
	if (reuse_tid)
		assert_int_equal(frame_builder__end_thread(fb, a, 270), 0);
	assert_int_equal(frame_builder__thread(fb, 1, reuse_tid ? 5 : 6, "B", "p", NULL, &b), 0);
	assert_ptr_not_equal(a, b);
	st_call(fb, b, 2, 300);
	st_call(fb, b, 3, 305);
	st_ret(fb, b, 325);
	st_ret(fb, b, 330);
	assert_int_equal(frame_builder__elided(fb, b, 3, 5, 500), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
}

#endif
