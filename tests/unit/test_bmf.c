// SPDX-License-Identifier: MIT
/* test_bmf.c: the Bencher Metric Format writer (format/bmf.h) on names no
 * fixture has: address suffixes, objects and groups, bytes that are not
 * UTF-8, names past Bencher's 1024 bytes, rows that come to one name, and
 * numbers, each against the exact text written. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/bmf.h"

/* b written, as a malloc'd string. */
static char *written(struct bmf *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(bmf__write(b, f), 0);
	assert_int_equal(fclose(f), 0);
	bmf__free(b);
	return buf;
}

static void test_stable_len(void **state)
{
	(void)state;
	assert_int_equal(bmf__stable_len("f (util.h:12)@0x4b2f0"), strlen("f (util.h:12)"));
	assert_int_equal(bmf__stable_len("g@0x0"), 1);
	assert_int_equal(bmf__stable_len("a@b"), 3);	   /* not an address */
	assert_int_equal(bmf__stable_len("f@0x"), 4);	   /* no digits */
	assert_int_equal(bmf__stable_len("f@0x4B2F0"), 9); /* sledtrace writes lower case */
	assert_int_equal(bmf__stable_len("f@0x12@g"), 8);  /* the last '@' decides */
	assert_int_equal(bmf__stable_len("operator@0x1z"), 13);
}

/* Copies of one static inline function are one benchmark, added up; the
 * object and the group follow the name. */
static void test_names_merge(void **state)
{
	struct bmf b = { 0 };
	long i;
	char *s;

	(void)state;
	i = bmf__row(&b, "f (util.h:12)@0x4b2f0", NULL, NULL);
	bmf__set(&b, i, BMF_CALLS, 3);
	bmf__set(&b, i, BMF_SELF_TIME, 100);
	i = bmf__row(&b, "f (util.h:12)@0x4c000", NULL, NULL);
	bmf__set(&b, i, BMF_CALLS, 4);
	bmf__set(&b, i, BMF_TOTAL_TIME, 7);
	i = bmf__row(&b, "main", "bench", "worker");
	bmf__set(&b, i, BMF_CALLS, 1);
	i = bmf__row(&b, "empty", NULL, NULL); /* no measure: not written */
	(void)i;
	s = written(&b);
	assert_string_equal(s,
			    "{\n"
			    "  \"f (util.h:12)\": {\"calls\": {\"value\": 7}, "
			    "\"total-time\": {\"value\": 7}, \"self-time\": {\"value\": 100}},\n"
			    "  \"main (bench)@worker\": {\"calls\": {\"value\": 1}}\n"
			    "}\n");
	free(s);
}

/* Bounds add up too, a measure without them counting its value as both. */
static void test_ranges(void **state)
{
	struct bmf b = { 0 };
	long i;
	char *s;

	(void)state;
	i = bmf__row(&b, "f", NULL, "t");
	bmf__set_range(&b, i, BMF_SELF_TIME, 10, 8, 12.5);
	i = bmf__row(&b, "f", NULL, "t");
	bmf__set(&b, i, BMF_SELF_TIME, 5);
	i = bmf__row(&b, "g", NULL, "t");
	bmf__set(&b, i, BMF_CALLS, NAN); /* not finite: left out */
	bmf__set_range(&b, i, BMF_CPU_SELF, 1e15, 0.25, INFINITY);
	s = written(&b);
	assert_string_equal(s,
			    "{\n  \"f@t\": {\"self-time\": {\"value\": 15, \"lower_value\": 13, "
			    "\"upper_value\": 17.5}}\n}\n");
	free(s);

	s = written(&b);
	assert_string_equal(s, "{}\n");
	free(s);
}

/* JSON escapes, and bytes that start no UTF-8 sequence as U+FFFD. */
static void test_text(void **state)
{
	struct bmf b = { 0 };
	long i;
	char *s;

	(void)state;
	i = bmf__row(&b, "q\"\\\x01", NULL, "t\xff\xc3\xa9\xed\xa0\x80");
	bmf__set(&b, i, BMF_CALLS, 1);
	s = written(&b);
	assert_string_equal(s,
			    "{\n  \"q\\\"\\\\\\u0001@t\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf"
			    "\xbd\xef\xbf\xbd\": {\"calls\": {\"value\": 1}}\n}\n");
	free(s);
}

/* The name between the outer quotes of s's first member. */
static char *first_name(const char *s)
{
	const char *a = strchr(s, '"') + 1, *z = strstr(a, "\": {");

	return strndup(a, (size_t)(z - a));
}

/* Names past 1024 bytes: head and tail around a hash of the whole, cut
 * between characters, and two that differ in the middle stay apart. */
static void test_long_names(void **state)
{
	char *name = malloc(3001), *s, *n1, *n2;
	struct bmf b = { 0 };
	long i;

	(void)state;
	memset(name, 'a', 1500);
	memset(name + 1500, 'b', 1500);
	name[3000] = 0;
	i = bmf__row(&b, name, NULL, NULL);
	bmf__set(&b, i, BMF_CALLS, 1);
	s = written(&b);
	n1 = first_name(s);
	assert_int_equal(strlen(n1), BMF_NAME_MAX);
	assert_int_equal(strspn(n1, "a"), 505);
	assert_memory_equal(n1 + 505, "...", 3);
	assert_int_equal(strspn(n1 + 516, "."), 3);
	assert_int_equal(strspn(n1 + 519, "b"), 505);
	free(s);

	name[1499] = 'x';
	i = bmf__row(&b, name, NULL, NULL);
	bmf__set(&b, i, BMF_CALLS, 1);
	s = written(&b);
	n2 = first_name(s);
	assert_int_equal(strlen(n2), BMF_NAME_MAX);
	assert_string_not_equal(n1, n2);
	free(s);
	free(n1);
	free(n2);

	/* 1500 two-byte characters: cut between them, never inside one */
	for (int k = 0; k < 1500; k++)
		memcpy(name + 2 * k, "\xc3\xa9", 2);
	name[3000] = 0;
	i = bmf__row(&b, name, NULL, NULL);
	bmf__set(&b, i, BMF_CALLS, 1);
	s = written(&b);
	n1 = first_name(s);
	assert_true(strlen(n1) <= BMF_NAME_MAX);
	assert_int_equal((unsigned char)n1[0], 0xc3);
	assert_memory_equal(strstr(n1, "...") - 2, "\xc3\xa9", 2);
	assert_memory_equal(n1 + strlen(n1) - 2, "\xc3\xa9", 2);
	assert_memory_equal(strrchr(n1, '.') + 1, "\xc3\xa9", 2);
	free(s);
	free(n1);
	free(name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable_len), cmocka_unit_test(test_names_merge),
		cmocka_unit_test(test_ranges),	   cmocka_unit_test(test_text),
		cmocka_unit_test(test_long_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
