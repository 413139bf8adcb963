// SPDX-License-Identifier: MIT
/* test_calltree.c: the call tree of synthetic_stream.h, node by node:
 * paths, calls, inclusive and self time, elided calls under their own
 * node, and two threads merged by path. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_threads),
		cmocka_unit_test(test_reused_tid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
