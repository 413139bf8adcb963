// SPDX-License-Identifier: MIT
/* test_collector.c: the collector's stack-pointer logic on hand-made event
 * streams (the e2e tests cover it on real processes; these pin the cases a
 * fixture cannot force): a reused tid after a thread exit, lost exits,
 * uretprobe tail-call chains, exits without entries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/collect/collector.h"

/* A sink that remembers every leave: function, depth, how, end. */
struct leave_rec {
	uint32_t tid, fid, depth, parent, index;
	uint64_t end;
	enum frame_end how;
};

static struct leave_rec leaves[64];
static size_t nleaves;

static int s_function(void *ctx, const struct trace_function *fn)
{
	(void)ctx;
	(void)fn;
	return 0;
}

static int s_thread(void *ctx, const struct trace_thread *th)
{
	(void)ctx;
	(void)th;
	return 0;
}

static int s_enter(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d)
{
	(void)ctx;
	(void)th;
	(void)st;
	(void)d;
	return 0;
}

static int s_leave(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d,
		   uint64_t end, enum frame_end how)
{
	(void)ctx;
	assert_true(nleaves < sizeof(leaves) / sizeof(leaves[0]));
	leaves[nleaves++] = (struct leave_rec){
		th->tid, st[d - 1].fid, d, d > 1 ? st[d - 2].fid : 0, th->index, end, how
	};
	return 0;
}

static int s_stats(void *ctx, const struct trace_stats *st)
{
	*(struct trace_stats *)ctx = *st;
	return 0;
}

static int s_finish(void *ctx)
{
	(void)ctx;
	return 0;
}

static const struct frame_sink_ops ops = { s_function, s_thread, s_enter, s_leave,
					   NULL,       s_stats,	 s_finish };

struct rig {
	struct frame_builder *fb;
	struct collector *c;
	struct trace_stats final;
};

static void rig_open(struct rig *r)
{
	struct frame_sink sink = { &ops, &r->final };
	struct collector_object obj = { .fid_base = 0, .nfuncs = 16 };

	nleaves = 0;
	memset(r, 0, sizeof(*r));
	sink.ctx = &r->final;
	r->fb = frame_builder__new(&sink);
	assert_non_null(r->fb);
	assert_int_equal(collector__new(r->fb, &r->c), 0);
	assert_int_equal(collector__add_object(r->c, &obj), 0);
}

static void rig_close(struct rig *r)
{
	struct trace_stats st = *collector__stats(r->c);

	assert_int_equal(frame_builder__finish(r->fb, &st), 0);
	collector__free(r->c);
	frame_builder__free(r->fb);
}

static void ev_in(struct rig *r, uint32_t tgid, uint32_t tid, unsigned kind, uint32_t fn,
		  uint64_t sp, uint64_t ts)
{
	struct sled_head h = { .ts = ts, .tgid = tgid, .tid = tid };

	/* sp: a call's slot; a thread exit's process_ended */
	if (kind == SLED_KIND_THREAD_EXIT) {
		struct sled_thread_exit e = { .h = h, .process_ended = (uint32_t)sp };

		e.h.tag = SLED_TAG(kind);
		assert_int_equal(collector__event(r->c, &e, sizeof(e)), 0);
	} else {
		struct sled_call e = { .h = h, .slot = sp };

		e.h.tag = SLED_COOKIE(kind, 0, fn);
		assert_int_equal(collector__event(r->c, &e, sizeof(e)), 0);
	}
}

static void ev(struct rig *r, uint32_t tid, unsigned kind, uint32_t fn, uint64_t sp, uint64_t ts)
{
	ev_in(r, 100, tid, kind, fn, sp, ts);
}

/* A thread dies inside f -> g; a new thread gets its tid and calls h with
 * a LOWER stack pointer.  Without the exit, h would nest under g. */
static void test_reused_tid(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	ev(&r, 7, SLED_KIND_ENTRY, 1, 0x7000, 10);
	ev(&r, 7, SLED_KIND_ENTRY, 2, 0x6f00, 20);
	ev(&r, 7, SLED_KIND_THREAD_EXIT, 0, 0, 30);
	ev(&r, 7, SLED_KIND_ENTRY, 3, 0x5000, 40);
	ev(&r, 7, SLED_KIND_RET, 3, 0x5000, 50);
	rig_close(&r);
	assert_int_equal(nleaves, 3);
	assert_int_equal(leaves[0].fid, 2);
	assert_int_equal(leaves[0].how, FRAME_UNFINISHED);
	assert_int_equal(leaves[0].end, 30);
	assert_int_equal(leaves[1].fid, 1);
	assert_int_equal(leaves[1].end, 30);
	assert_int_equal(leaves[2].fid, 3);
	assert_int_equal(leaves[2].depth, 1); /* a root, not g's child */
	assert_int_equal(leaves[0].index, 0);
	assert_int_equal(leaves[2].index, 1); /* a thread of its own */
	assert_int_equal(leaves[2].how, FRAME_RETURNED);
	assert_int_equal(r.final.unfinished, 2);
	assert_int_equal(r.final.unmatched_exits, 0);
}

/* One tid in two processes (as multi-process tracing sees them in two pid
 * namespaces): two threads, whose frames never pair with each other. */
static void test_same_tid_two_processes(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	ev_in(&r, 100, 7, SLED_KIND_ENTRY, 1, 0x7000, 10);
	ev_in(&r, 200, 7, SLED_KIND_ENTRY, 2, 0x6000, 20);
	ev_in(&r, 100, 7, SLED_KIND_EXIT, 1, 0x7000, 30);
	ev_in(&r, 200, 7, SLED_KIND_EXIT, 2, 0x6000, 40);
	rig_close(&r);
	assert_int_equal(nleaves, 2);
	assert_int_equal(leaves[0].fid, 1);
	assert_int_equal(leaves[0].index, 0);
	assert_int_equal(leaves[0].depth, 1);
	assert_int_equal(leaves[0].how, FRAME_RETURNED);
	assert_int_equal(leaves[1].fid, 2);
	assert_int_equal(leaves[1].index, 1);
	assert_int_equal(leaves[1].depth, 1);
	assert_int_equal(leaves[1].how, FRAME_RETURNED);
	assert_int_equal(r.final.inferred_exits + r.final.unmatched_exits, 0);
}

/* g's exit is lost (longjmp); f's exit proves g is gone. */
static void test_lost_exit(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	ev(&r, 1, SLED_KIND_ENTRY, 1, 0x7000, 10);
	ev(&r, 1, SLED_KIND_ENTRY, 2, 0x6f00, 20);
	ev(&r, 1, SLED_KIND_EXIT, 1, 0x7000, 50);
	rig_close(&r);
	assert_int_equal(nleaves, 2);
	assert_int_equal(leaves[0].fid, 2);
	assert_int_equal(leaves[0].how, FRAME_INFERRED);
	assert_int_equal(leaves[1].fid, 1);
	assert_int_equal(leaves[1].how, FRAME_RETURNED);
	assert_int_equal(r.final.inferred_exits, 1);
}

/* f tail-calls g tail-calls h under uretprobes: TAIL sleds close f and g,
 * then the kernel reports h's, g's and f's returns at one slot. */
static void test_uretprobe_tail_chain(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	ev(&r, 1, SLED_KIND_ENTRY, 9, 0x8000, 1);
	ev(&r, 1, SLED_KIND_ENTRY, 1, 0x7000, 10);
	ev(&r, 1, SLED_KIND_TAIL, 1, 0x7000, 11);
	ev(&r, 1, SLED_KIND_ENTRY, 2, 0x7000, 12);
	ev(&r, 1, SLED_KIND_TAIL, 2, 0x7000, 13);
	ev(&r, 1, SLED_KIND_ENTRY, 3, 0x7000, 14);
	ev(&r, 1, SLED_KIND_RET, 3, 0x7000, 20);
	ev(&r, 1, SLED_KIND_RET, 2, 0x7000, 20);
	ev(&r, 1, SLED_KIND_RET, 1, 0x7000, 20);
	ev(&r, 1, SLED_KIND_RET, 9, 0x8000, 30);
	rig_close(&r);
	assert_int_equal(nleaves, 4);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(leaves[i].fid, i + 1);
		assert_int_equal(leaves[i].depth, 2); /* siblings under 9 */
		assert_int_equal(leaves[i].parent, 9);
	}
	assert_int_equal(leaves[0].how, FRAME_TAIL);
	assert_int_equal(leaves[2].how, FRAME_RETURNED);
	assert_int_equal(r.final.unmatched_exits, 0);
}

/* An exit whose entry was never seen (a frame older than the trace). */
static void test_unmatched_exit(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r);
	ev(&r, 1, SLED_KIND_ENTRY, 1, 0x7000, 10);
	ev(&r, 1, SLED_KIND_RET, 1, 0x7000, 20);
	ev(&r, 1, SLED_KIND_RET, 5, 0x9000, 30);
	rig_close(&r);
	assert_int_equal(nleaves, 1);
	assert_int_equal(r.final.unmatched_exits, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reused_tid),
		cmocka_unit_test(test_same_tid_two_processes),
		cmocka_unit_test(test_lost_exit),
		cmocka_unit_test(test_uretprobe_tail_chain),
		cmocka_unit_test(test_unmatched_exit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
