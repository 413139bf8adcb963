// SPDX-License-Identifier: MIT
/* test_budget_plan.c: record --budget's plan on a trace whose calls and
 * times are made up, so the functions it must leave out follow from the
 * model (analysis/budget_plan.h) by hand: main 1 call, a 10, b 1,000 and
 * c 10,000, a program of 10 ms untraced whose recording used 5,000 ns
 * more per call.  Also the set it makes (select/budget.h). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/budget_plan.h"
#include "format/perfetto/perfetto_writer.h"
#include "model/frames.h"
#include "select/budget.h"
#include "util/byte_sink.h"

#define UNTRACED_NS 10000000ull
#define CALL_NS 5000ull
#define NCALLS (1 + 10 + 1000 + 10000)

static char path[] = "/tmp/sledtrace-test-budget-XXXXXX";

/* main { a x10, b x1000 { c x10 } }: every call a 100 ns leaf or parent. */
static void play(struct frame_builder *fb, struct fb_thread *t)
{
	uint64_t ts = 1000;

	assert_int_equal(frame_builder__enter(fb, t, 1, ts, 0), 0);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(frame_builder__enter(fb, t, 2, ts += 100, 0), 0);
		assert_int_equal(frame_builder__leave(fb, t, ts += 100, FRAME_RETURNED), 0);
	}
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(frame_builder__enter(fb, t, 3, ts += 100, 0), 0);
		for (int k = 0; k < 10; k++) {
			assert_int_equal(frame_builder__enter(fb, t, 4, ts += 100, 0), 0);
			assert_int_equal(frame_builder__leave(fb, t, ts += 100, FRAME_RETURNED), 0);
		}
		assert_int_equal(frame_builder__leave(fb, t, ts += 100, FRAME_RETURNED), 0);
	}
	assert_int_equal(frame_builder__leave(fb, t, ts += 100, FRAME_RETURNED), 0);
}

static int setup(void **state)
{
	struct perfetto_writer_opts o = { 0 };
	struct trace_function fns[] = { { .id = 1, .name = "main", .object = "/x/prog" },
					{ .id = 2, .name = "a", .object = "/x/prog" },
					{ .id = 3, .name = "b", .object = "/x/prog" },
					{ .id = 4, .name = "c", .object = "/x/prog" } };
	struct trace_stats st = { .events = 2 * NCALLS,
				  .probe_cost_ns = 100,
				  .program_cpu_ns = UNTRACED_NS + NCALLS * CALL_NS };
	struct perfetto_writer *w;
	struct frame_builder *fb;
	struct frame_sink sink;
	struct fb_thread *t;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), &o, &w), 0);
	sink = perfetto_writer__sink(w);
	assert_non_null(fb = frame_builder__new(&sink));
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(frame_builder__function(fb, &fns[i]), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 10, "t", "p", NULL, &t), 0);
	play(fb, t);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
	perfetto_writer__free(w);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static struct budget *plan(double share, struct budget_summary *sum, int want)
{
	const char *paths[] = { path };
	struct budget *b = NULL;
	char err[512] = "";

	assert_int_equal(budget_plan__make(paths, 1, share, UNTRACED_NS, &b, sum, err, sizeof(err)),
			 want);
	return b;
}

/* C is the recording's excess per call over the untraced run. */
static void test_cost_from_untraced(void **state)
{
	struct budget_summary sum;
	struct budget *b = plan(0.05, &sum, 0);

	(void)state;
	assert_int_equal(sum.call_cost_ns, CALL_NS);
	assert_int_equal(sum.program_ns, UNTRACED_NS);
	assert_true(sum.measured);
	assert_int_equal(sum.calls, NCALLS);
	assert_int_equal(sum.functions, 4);
	budget__free(b);
}

/* 5% of 10 ms is 100 calls: main and a (11) fit, b (1,000) does not, and
 * what comes after the first left out is left out too. */
static void test_five_percent(void **state)
{
	struct budget_summary sum;
	struct budget *b = plan(0.05, &sum, 0);

	(void)state;
	assert_int_equal(sum.left_functions, 2);
	assert_int_equal(sum.left_calls, 11000);
	assert_false(budget__leaves_out(b, "/x/prog", "main"));
	assert_false(budget__leaves_out(b, "/x/prog", "a"));
	assert_true(budget__leaves_out(b, "/elsewhere/prog", "b")); /* by name alone */
	assert_true(budget__leaves_out(b, "prog", "c"));
	assert_string_equal(sum.hottest[0], "c");
	assert_int_equal(sum.hottest_calls[0], 10000);
	assert_string_equal(sum.hottest[1], "b");
	assert_string_equal(sum.hottest[2], "");
	budget__free(b);
}

/* 60% is 1,200 calls: b fits beside main and a, c does not. */
static void test_sixty_percent(void **state)
{
	struct budget_summary sum;
	struct budget *b = plan(0.6, &sum, 0);

	(void)state;
	assert_int_equal(sum.left_functions, 1);
	assert_false(budget__leaves_out(b, "/x/prog", "b"));
	assert_true(budget__leaves_out(b, "/x/prog", "c"));
	budget__free(b);
}

/* A budget that fits not even main's one call probes nothing: refused. */
static void test_nothing_probed(void **state)
{
	struct budget_summary sum;

	(void)state;
	assert_null(plan(1e-6, &sum, -E2BIG));
}

/* The set: a name two objects share is kept apart by object file name. */
static void test_set_by_object(void **state)
{
	struct budget *b;

	(void)state;
	assert_int_equal(budget__new(&b), 0);
	assert_int_equal(budget__leave_out(b, "/lib/liba.so", "f"), 0);
	assert_int_equal(budget__leave_out(b, "", "g"), 0);
	assert_int_equal(budget__leave_out(b, "", "g"), 0);
	budget__seal(b);
	assert_int_equal(budget__count(b), 2);
	assert_true(budget__leaves_out(b, "/other/dir/liba.so", "f"));
	assert_false(budget__leaves_out(b, "/lib/libb.so", "f"));
	assert_true(budget__leaves_out(b, "/lib/libb.so", "g"));
	assert_false(budget__leaves_out(b, "/lib/liba.so", "h"));
	budget__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_from_untraced), cmocka_unit_test(test_five_percent),
		cmocka_unit_test(test_sixty_percent),	   cmocka_unit_test(test_nothing_probed),
		cmocka_unit_test(test_set_by_object),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
