// SPDX-License-Identifier: MIT
/* test_srcloc.c: source locations read from this test binary's own DWARF
 * (the build compiles it with -g): a function's declaration line, and
 * -ENOENT for addresses outside every function. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "object/elf_object.h"
#include "object/srcloc.h"

/* Defined on one line so __LINE__ is the declaration line DWARF records
 * (clang-format would spread it over four). */
// clang-format off
__attribute__((noinline, used)) int srcloc_marker(int x) { return x * 3 + 1; } static const int marker_line = __LINE__;
// clang-format on

static void test_own_dwarf(void **state)
{
	struct elf_object *obj;
	const struct elf_symbol *sym;
	struct srcloc *sl;
	const char *file = NULL;
	uint32_t line = 0;
	char err[256];

	(void)state;
	assert_int_equal(elf_object__open("/proc/self/exe", &obj, err, sizeof(err)), 0);
	sym = elf_object__find_symbol(obj, "srcloc_marker");
	assert_non_null(sym);
	sl = srcloc__open(obj);
	assert_non_null(sl);
	assert_int_equal(srcloc__lookup(sl, sym->addr, &file, &line), 0);
	assert_non_null(strstr(file, "test_srcloc.c"));
	assert_int_equal(line, marker_line);
	/* inside the function (not at its entry) it is still that function */
	assert_int_equal(srcloc__lookup(sl, sym->addr + 1, &file, &line), 0);
	assert_int_equal(line, marker_line);
	assert_int_equal(srcloc__lookup(sl, 0, &file, &line), -ENOENT);
	srcloc__free(sl);
	elf_object__free(obj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_dwarf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
