// SPDX-License-Identifier: MIT
/* test_num_text.c: integers as text (util/num_text.h) against printf,
 * at the edges of each range, and value__format on top of them. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/values.h"
#include "util/num_text.h"

static void expect_text(const char *want, char *got, size_t n)
{
	assert_true(n <= NUM_TEXT_MAX);
	got[n] = 0;
	assert_string_equal(got, want);
}

static void test_edges(void **state)
{
	static const uint64_t u[] = { 0, 1, 9, 10, 99, 1000000007ull, UINT64_MAX - 1, UINT64_MAX };
	static const int64_t s[] = { 0, -1, 1, INT64_MIN, INT64_MIN + 1, INT64_MAX, -42 };
	char got[NUM_TEXT_MAX + 1], want[64];

	(void)state;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		snprintf(want, sizeof(want), "%" PRIu64, u[i]);
		expect_text(want, got, num_text__u64(got, u[i]));
		snprintf(want, sizeof(want), "0x%" PRIx64, u[i]);
		expect_text(want, got, num_text__hex(got, u[i]));
	}
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		snprintf(want, sizeof(want), "%" PRId64, s[i]);
		expect_text(want, got, num_text__i64(got, s[i]));
	}
}

/* value__format: each kind's text, and a buffer too short is cut, not
 * overrun. */
static void test_value_format(void **state)
{
	char buf[32], small[4];

	(void)state;
	assert_string_equal(value__format(VALUE_INT, (uint64_t)-5, buf, sizeof(buf)), "-5");
	assert_string_equal(value__format(VALUE_UINT, UINT64_MAX, buf, sizeof(buf)),
			    "18446744073709551615");
	assert_string_equal(value__format(VALUE_BOOL, 7, buf, sizeof(buf)), "true");
	assert_string_equal(value__format(VALUE_BOOL, 0, buf, sizeof(buf)), "false");
	assert_string_equal(value__format(VALUE_POINTER, 0xdeadbeef, buf, sizeof(buf)),
			    "0xdeadbeef");
	assert_string_equal(value__format(VALUE_UINT, 123456, small, sizeof(small)), "123");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_value_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
