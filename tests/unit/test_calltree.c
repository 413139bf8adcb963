// SPDX-License-Identifier: MIT
/* test_calltree.c: the call tree of synthetic_stream.h, node by node:
 * paths, calls, inclusive and self time, elided calls under their own
 * node, and two threads merged by path; compensated times per call,
 * clamped per call as the report clamps them, summed per path; record
 * --costs's self counts summed per path. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/calltree.h"
#include "synthetic_stream.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void path_of(const struct calltree *ct, size_t i, char *buf, size_t len)
{
	const struct calltree_node *n = calltree__node(ct, i);

	if (n->parent)
		path_of(ct, n->parent, buf, len);
	if (*buf)
		strncat(buf, ";", len - strlen(buf) - 1);
	strncat(buf, calltree__name(ct, n->fid), len - strlen(buf) - 1);
}

/* Every node but the root as "path calls total self", sorted, one a line. */
static char *render(const struct calltree *ct)
{
	size_t n = calltree__count(ct);
	char **lines = calloc(n, sizeof(*lines)), *out = calloc(n, 160);

	assert_true(lines && out);
	for (size_t i = 1; i < n; i++) {
		const struct calltree_node *node = calltree__node(ct, i);
		char path[128] = "";

		path_of(ct, i, path, sizeof(path));
		lines[i - 1] = malloc(160);
		snprintf(lines[i - 1], 160, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", path,
			 node->calls, node->total_ns, node->self_ns);
	}
	qsort(lines, n - 1, sizeof(*lines), cmp_str);
	for (size_t i = 0; i + 1 < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

static void check(bool reuse_tid)
{
	struct calltree *ct;
	struct frame_sink sink;
	char *text;

	assert_int_equal(calltree__new(&ct), 0);
	sink = calltree__sink(ct);
	play_stream(&sink, reuse_tid);
	text = render(ct);
	assert_string_equal(text,
			    "[deeper than the trace's depth cap] 0 0 0\n"
			    "[deeper than the trace's depth cap];g 5 500 0\n"
			    "f 1 30 10\n"
			    "f;g 1 20 20\n"
			    "main 1 260 160\n"
			    "main;f 2 50 40\n"
			    "main;f;g 1 10 10\n"
			    "main;r 1 50 20\n"
			    "main;r;r 1 30 20\n"
			    "main;r;r;r 1 10 10\n");
	assert_int_equal(calltree__stats(ct)->events, 42);
	free(text);
	calltree__free(ct);
}

static void test_two_threads(void **state)
{
	(void)state;
	check(false);
}

/* The same numbers when B reuses A's tid: its stack starts empty. */
static void test_reused_tid(void **state)
{
	(void)state;
	check(true);
}

/* Compensated (probe_cost_ns 10, the leaves' duration), per call: its
 * time less 10 x its hits, clamped at 0.  main 260 - 13 x 10 = 130, self
 * 160 - 4 x 10; A's first f 40 - 3 x 10 = 10, self 30 - 2 x 10 = 10, its
 * second f and every r 0; B's g 20 - 10, its f 30 - 30 = 0. */
static void test_compensated(void **state)
{
	struct calltree *ct;
	struct frame_sink sink;
	char *text;

	(void)state;
	assert_int_equal(calltree__new(&ct), 0);
	assert_false(calltree__compensated(ct));
	calltree__compensate(ct);
	assert_true(calltree__compensated(ct));
	sink = calltree__sink(ct);
	assert_non_null(sink.ops->probe_cost);
	play_stream(&sink, false);
	text = render(ct);
	assert_string_equal(text,
			    "[deeper than the trace's depth cap] 0 0 0\n"
			    "[deeper than the trace's depth cap];g 5 500 0\n"
			    "f 1 0 0\n"
			    "f;g 1 10 10\n"
			    "main 1 130 120\n"
			    "main;f 2 10 10\n"
			    "main;f;g 1 0 0\n"
			    "main;r 1 0 0\n"
			    "main;r;r 1 0 0\n"
			    "main;r;r;r 1 0 0\n");
	free(text);
	calltree__free(ct);
}

/* x under a, b and c: 40, 50 and 24 ns with 3 hits each, so 10, 20 and 0
 * (24 - 30 clamps at 0 on its own call, not against the others): x's
 * self sums to 30 over its paths, as the report's per-call figures do.
 * A cost other than the one the stats end with is refused. */
static void play_shares(struct calltree *ct, uint64_t cost, int want_finish)
{
	static const char *const names[] = { NULL, "a", "b", "c", "x", "L" };
	struct trace_stats st = { 0 };
	struct frame_sink sink = calltree__sink(ct);
	struct frame_builder *fb;
	struct fb_thread *t;

	assert_int_equal(sink.ops->probe_cost(sink.ctx, &(struct comp_cost){ cost, 2 * cost }), 0);
	assert_non_null(fb = frame_builder__new(&sink));
	for (uint32_t id = 1; id <= 5; id++) {
		struct trace_function fn = { .id = id, .name = names[id] };

		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 1, 1, "T", "p", NULL, &t), 0);
	for (uint32_t caller = 1; caller <= 3; caller++) {
		static const uint64_t x_end[] = { 0, 50, 160, 234 };
		uint64_t at = (caller - 1) * 100;

		st_call(fb, t, caller, at);
		st_call(fb, t, 4, at + 10);
		st_call(fb, t, 5, at + 20);
		st_ret(fb, t, at + 30);
		st_ret(fb, t, x_end[caller]);
		st_ret(fb, t, x_end[caller] + 10);
	}
	assert_int_equal(frame_builder__finish(fb, &st), want_finish);
	frame_builder__free(fb);
}

static void test_compensated_per_call(void **state)
{
	struct calltree *ct;
	char *text;

	(void)state;
	assert_int_equal(calltree__new(&ct), 0);
	calltree__compensate(ct);
	play_shares(ct, 10, 0);
	assert_int_equal(calltree__stats(ct)->probe_cost_ns, 10);
	text = render(ct);
	assert_string_equal(text,
			    "a 1 10 0\n"
			    "a;x 1 10 10\n"
			    "a;x;L 1 0 0\n"
			    "b 1 20 0\n"
			    "b;x 1 20 20\n"
			    "b;x;L 1 0 0\n"
			    "c 1 0 0\n"
			    "c;x 1 0 0\n"
			    "c;x;L 1 0 0\n");
	free(text);
	calltree__free(ct);
	assert_int_equal(calltree__new(&ct), 0);
	calltree__compensate(ct);
	play_shares(ct, 9, -EPROTO);
	calltree__free(ct);
}

/* The node whose path is path ("a;b"), or 0. */
static size_t find(const struct calltree *ct, const char *path)
{
	for (size_t i = 1; i < calltree__count(ct); i++) {
		char buf[128] = "";

		path_of(ct, i, buf, sizeof(buf));
		if (!strcmp(buf, path))
			return i;
	}
	return 0;
}

static void spend(struct fb_thread *t, enum cost_kind kind, uint64_t n)
{
	assert_int_equal(frame_builder__cost(t, kind, n, kind == COST_SYSCALLS ? 39 : 0), 0);
}

/* record --costs: a path sums its calls' self counts.  f1 allocates 100
 * bytes itself and calls f2 twice, which makes a syscall and takes a
 * fault each time; then f1 calls f3..f300, each allocating as many bytes
 * as its number: more nodes than the tree had room for when the first
 * costs came, so the sums must grow with the nodes.  A tree whose frames
 * spent nothing has no sums, and has costs only when its stats say
 * --costs. */
static void test_costs(void **state)
{
	enum { NFN = 300 };
	static char names[NFN + 1][8];
	struct trace_stats st = { 0 };
	struct calltree *ct;
	struct frame_sink sink;
	struct frame_builder *fb;
	struct fb_thread *t;
	const uint64_t *c;
	uint64_t at = 0;

	(void)state;
	assert_int_equal(calltree__new(&ct), 0);
	sink = calltree__sink(ct);
	assert_non_null(fb = frame_builder__new(&sink));
	for (uint32_t id = 1; id <= NFN; id++) {
		struct trace_function fn = { .id = id, .name = names[id] };

		snprintf(names[id], sizeof(names[id]), "f%u", id);
		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 1, 1, "T", "p", NULL, &t), 0);
	st_call(fb, t, 1, at++);
	spend(t, COST_ALLOCS, 1);
	spend(t, COST_ALLOC_BYTES, 100);
	for (int i = 0; i < 2; i++) {
		st_call(fb, t, 2, at++);
		spend(t, COST_SYSCALLS, 1);
		spend(t, COST_PAGE_FAULTS, 1);
		st_ret(fb, t, at++);
	}
	for (uint32_t id = 3; id <= NFN; id++) {
		st_call(fb, t, id, at++);
		spend(t, COST_ALLOCS, 1);
		spend(t, COST_ALLOC_BYTES, id);
		st_ret(fb, t, at++);
	}
	st_ret(fb, t, at++);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
	assert_true(calltree__count(ct) > 256);
	assert_true(calltree__has_costs(ct));
	assert_non_null(c = calltree__costs(ct, find(ct, "f1")));
	assert_int_equal(c[COST_ALLOCS], 1);
	assert_int_equal(c[COST_ALLOC_BYTES], 100);
	assert_int_equal(c[COST_SYSCALLS] + c[COST_PAGE_FAULTS], 0);
	assert_non_null(c = calltree__costs(ct, find(ct, "f1;f2")));
	assert_int_equal(c[COST_SYSCALLS], 2);
	assert_int_equal(c[COST_PAGE_FAULTS], 2);
	assert_int_equal(c[COST_ALLOCS], 0);
	assert_non_null(c = calltree__costs(ct, find(ct, "f1;f300")));
	assert_int_equal(c[COST_ALLOCS], 1);
	assert_int_equal(c[COST_ALLOC_BYTES], 300);
	calltree__free(ct);

	assert_int_equal(calltree__new(&ct), 0);
	sink = calltree__sink(ct);
	play_stream(&sink, false);
	assert_null(calltree__costs(ct, 1));
	assert_false(calltree__has_costs(ct));
	st.costs = 1;
	assert_int_equal(sink.ops->stats(sink.ctx, &st), 0);
	assert_true(calltree__has_costs(ct));
	calltree__free(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads), cmocka_unit_test(test_reused_tid),
		cmocka_unit_test(test_compensated), cmocka_unit_test(test_compensated_per_call),
		cmocka_unit_test(test_costs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
