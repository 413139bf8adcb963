// SPDX-License-Identifier: MIT
/* test_exit_policy.c: --exit resolved for a recording, row by row: which
 * file the command's objects are probed on, whether a copy is required,
 * how returns on originals are seen, and which combinations are refused
 * (sled and rewrite without sleds, rewrite for running processes).  The
 * per-object half is tested on real objects in test_probe_plan.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probes/exit_policy.h"

#define CMD true
#define PID false
#define SLEDS true
#define SYMS false
#define FAST true
#define SLOW false

struct row {
	enum exit_mode mode;
	struct exit_env env;
	int err;
	enum exit_copy copy;
	bool required;
	enum exit_returns returns;
};

static const struct row rows[] = {
	/* auto: copies only for a command with sleds on a kernel that runs nop5 probes as calls */
	{ EXIT_AUTO, { CMD, SLEDS, FAST }, 0, EXIT_COPY_REWRITTEN, false, RETURNS_MIXED },
	{ EXIT_AUTO, { CMD, SLEDS, SLOW }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_MIXED },
	{ EXIT_AUTO, { PID, SLEDS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_MIXED },
	{ EXIT_AUTO, { CMD, SYMS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_MIXED },
	/* rewrite: copies whatever the kernel, required; never for -p or symbols */
	{ EXIT_REWRITE, { CMD, SLEDS, FAST }, 0, EXIT_COPY_REWRITTEN, true, RETURNS_MIXED },
	{ EXIT_REWRITE, { CMD, SLEDS, SLOW }, 0, EXIT_COPY_REWRITTEN, true, RETURNS_MIXED },
	{ EXIT_REWRITE, { PID, SLEDS, FAST }, -ENOTSUP, 0, false, 0 },
	{ EXIT_REWRITE, { CMD, SYMS, FAST }, -ENOTSUP, 0, false, 0 },
	/* the others: the originals, with the returns they name */
	{ EXIT_MIXED, { CMD, SLEDS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_MIXED },
	{ EXIT_MIXED, { CMD, SYMS, SLOW }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_MIXED },
	{ EXIT_SLED, { CMD, SLEDS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_SLED },
	{ EXIT_SLED, { PID, SLEDS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_SLED },
	{ EXIT_SLED, { CMD, SYMS, FAST }, -ENOTSUP, 0, false, 0 },
	{ EXIT_URETPROBE, { CMD, SLEDS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_URETPROBE },
	{ EXIT_URETPROBE, { CMD, SYMS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_URETPROBE },
	{ EXIT_INFER, { PID, SLEDS, SLOW }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_INFER },
	{ EXIT_INFER, { CMD, SYMS, FAST }, 0, EXIT_COPY_ORIGINAL, false, RETURNS_INFER },
};

static void test_resolve(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		struct exit_policy p;
		char why[256] = "";
		int err = exit_policy__resolve(w->mode, &w->env, &p, why, sizeof(why));

		if (err != w->err)
			fail_msg("row %zu (%s): %d, expected %d", i, exit_mode_names[w->mode], err,
				 w->err);
		if (err) {
			assert_non_null(strstr(why, exit_mode_names[w->mode]));
			continue;
		}
		if (p.copy != w->copy || p.copy_required != w->required || p.returns != w->returns)
			fail_msg("row %zu (%s): copy %d required %d returns %s", i,
				 exit_mode_names[w->mode], p.copy, p.copy_required,
				 exit_returns__name(p.returns));
	}
}

static void test_check(void **state)
{
	char why[256];

	(void)state;
	assert_int_equal(exit_policy__check(EXIT_SLED, false, why, sizeof(why)), -ENOTSUP);
	assert_string_equal(why, "--exit=sled needs XRay sleds; not with --no-xray");
	assert_int_equal(exit_policy__check(EXIT_REWRITE, false, why, sizeof(why)), -ENOTSUP);
	assert_string_equal(why, "--exit=rewrite needs XRay sleds; not with --no-xray");
	for (enum exit_mode m = EXIT_AUTO; m <= EXIT_MIXED; m++)
		assert_int_equal(exit_policy__check(m, true, why, sizeof(why)), 0);
}

/* The one table: the option's values in enum order, and each returns
 * value named by the mode that asks for it. */
static void test_names(void **state)
{
	static const char *const want[] = { "auto",    "sled",	"uretprobe", "infer",
					    "rewrite", "mixed", NULL };

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!want[i])
			assert_null(exit_mode_names[i]);
		else
			assert_string_equal(exit_mode_names[i], want[i]);
	}
	assert_string_equal(exit_returns__name(RETURNS_SLED), "sled");
	assert_string_equal(exit_returns__name(RETURNS_URETPROBE), "uretprobe");
	assert_string_equal(exit_returns__name(RETURNS_INFER), "infer");
	assert_string_equal(exit_returns__name(RETURNS_MIXED), "mixed");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
