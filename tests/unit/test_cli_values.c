// SPDX-License-Identifier: MIT
/* test_cli_values.c: the one parser of each option value kind: sizes,
 * durations (a unit is required), bounded integers, enums and percentages,
 * and the messages that say what is accepted. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/values.h"

static void test_sizes(void **state)
{
	static const char *const bad[] = {
		"x", "-1", "4KB", "", "K", "99999999999999999999", "17179869184G"
	};
	char err[256];
	uint64_t v;

	(void)state;
	assert_int_equal(cli_parse_size("4096", 0, 0, false, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cli_parse_size("4K", 0, 0, false, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cli_parse_size("64m", 0, 0, true, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(cli_parse_size("1G", 0, 1ull << 30, true, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(cli_parse_size("2G", 0, 1ull << 30, true, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "to 1G"));
	assert_int_equal(cli_parse_size("3M", 4096, 0, true, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power of two"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cli_parse_size(bad[i], 0, 0, false, &v, err, sizeof(err)),
				 -EINVAL);
}

static void test_durations(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{ "500ns", 500 },
		{ "500us", 500000 },
		{ "1.5ms", 1500000 },
		{ "2s", 2000000000ull },
		{ "1m", 60000000000ull },
		{ "1h", 3600000000000ull },
		{ "0s", 0 },
	};
	char err[256];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(cli_parse_duration(ok[i].s, &v, err, sizeof(err)), 0);
		assert_int_equal(v, ok[i].ns);
	}
	/* A bare number is an error that names the units. */
	assert_int_equal(cli_parse_duration("5", &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ns, us, ms, s, m or h"));
	assert_int_equal(cli_parse_duration("2parsecs", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_duration("-1s", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_duration("ms", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_duration("1e30h", &v, err, sizeof(err)), -EINVAL);
}

static void test_uint_and_enum(void **state)
{
	static const char *const names[] = { "auto", "multi", "perf", NULL };
	char err[256];
	uint64_t v;
	int e;

	(void)state;
	assert_int_equal(cli_parse_uint("12", 1, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 12);
	assert_int_equal(cli_parse_uint("0", 1, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_uint("101", 1, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_uint("1x", 1, 100, &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(cli_parse_enum("perf", names, &e, err, sizeof(err)), 0);
	assert_int_equal(e, 2);
	assert_int_equal(cli_parse_enum("Perf", names, &e, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "'Perf' is not one of auto, multi, perf");
}

static void test_percent(void **state)
{
	static const char *const bad[] = { "", "%", "5", "0.5", "-1%", "x%", "5%%", "100%", "49%" };
	char err[256];
	double v;

	(void)state;
	assert_int_equal(cli_parse_percent("0.5%", 0, 100, &v, err, sizeof(err)), 0);
	assert_true(v > 0.00499 && v < 0.00501);
	assert_int_equal(cli_parse_percent("0%", 0, 100, &v, err, sizeof(err)), 0);
	assert_true(v == 0);
	assert_int_equal(cli_parse_percent("99.9%", 50, 100, &v, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(cli_parse_percent(bad[i], 50, 100, &v, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "is not a percentage from 50% to below 100%"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_uint_and_enum),
		cmocka_unit_test(test_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
