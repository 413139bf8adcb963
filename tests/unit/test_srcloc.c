// SPDX-License-Identifier: MIT
/* test_srcloc.c: source locations read from this test binary's own DWARF
 * (the build compiles it with -g, from the build directory, naming this
 * file by a relative path): a function's declaration line and its file as
 * a whole path, -ENOENT for addresses outside every function; and the
 * joining and normalizing of paths that makes them whole. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "object/elf_object.h"
#include "object/srcloc.h"
#include "object/srcpath.h"

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
	assert_non_null(strstr(file, "/tests/unit/test_srcloc.c"));
	/* the build names it ../tests/unit/test_srcloc.c from the build dir */
	assert_int_equal(file[0], '/');
	assert_null(strstr(file, "/../"));
	assert_null(strstr(file, "/./"));
	assert_int_equal(line, marker_line);
	/* inside the function (not at its entry) it is still that function */
	assert_int_equal(srcloc__lookup(sl, sym->addr + 1, &file, &line), 0);
	assert_int_equal(line, marker_line);
	assert_int_equal(srcloc__lookup(sl, 0, &file, &line), -ENOENT);
	srcloc__free(sl);
	elf_object__free(obj);
}

struct join_case {
	const char *dir, *name, *want;
};

static void test_join(void **state)
{
	static const struct join_case cases[] = {
		/* a relative name under DW_AT_comp_dir */
		{ "/build", "../src/a.c", "/src/a.c" },
		{ "/work/out", "../proj/src/parts/b.c", "/work/proj/src/parts/b.c" },
		{ "/work/out/", "./x.c", "/work/out/x.c" },
		{ "/a/b", "c/./d/../e.c", "/a/b/c/e.c" },
		{ "/a/b", "../../../../x.c", "/x.c" }, /* ".." stops at the root */
		{ "/", "x.c", "/x.c" },
		{ "//a//b/", "c//d.c", "/a/b/c/d.c" },
		/* an absolute name ignores the directory */
		{ "/build", "/usr/include/./stdio.h", "/usr/include/stdio.h" },
		{ "/build", "/usr/lib/../include/x.h", "/usr/include/x.h" },
		{ "/build", "/..", "/" },
		{ "/build", "/", "/" },
		/* no directory: the name alone, normalized, relative if it was */
		{ NULL, "../src/./a.c", "../src/a.c" },
		{ "", "a/../../b.c", "../b.c" },
		{ NULL, "a/b/../..", "." },
		{ NULL, "./", "." },
		{ NULL, "", "." },
		{ NULL, "../../x/../y", "../../y" },
		{ "rel/dir", "../f.c", "rel/f.c" },
		{ "..", "f.c", "../f.c" },
		/* dots that are names */
		{ "/a", ".hidden/..x/...", "/a/.hidden/..x/..." },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = srcpath__join(cases[i].dir, cases[i].name);

		assert_non_null(got);
		if (strcmp(got, cases[i].want))
			fail_msg("join(%s, %s) = '%s', want '%s'",
				 cases[i].dir ? cases[i].dir : "NULL", cases[i].name, got,
				 cases[i].want);
		free(got);
	}
	assert_null(srcpath__join("/a", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_dwarf),
		cmocka_unit_test(test_join),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
