// SPDX-License-Identifier: MIT
/* test_filter.c: include/exclude semantics, regex errors, and the filter
 * file (comments, '!', headers, stale build-ids, atomic round trips). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "select/filter.h"

static const char *rust_drop = "<resolver::Cache as core::ops::Drop>::drop";
static const char *rust_drop_mangled =
	"_ZN56_$LT$resolver..Cache$u20$as$u20$core..ops..Drop$GT$4drop17h3f598a9d70d5f208E";

static char err[4096];

static struct filter *filter_of(const char *const *includes, const char *const *excludes)
{
	struct filter *f = filter__new();

	assert_non_null(f);
	for (; includes && *includes; includes++)
		assert_int_equal(filter__add(f, *includes, false, err, sizeof(err)), 0);
	for (; excludes && *excludes; excludes++)
		assert_int_equal(filter__add(f, *excludes, true, err, sizeof(err)), 0);
	return f;
}

static void test_no_includes_selects_all(void **state)
{
	struct filter *f = filter_of(NULL, NULL);

	(void)state;
	assert_true(filter__match(f, rust_drop, rust_drop_mangled));
	assert_true(filter__match(f, NULL, "main"));
	assert_false(filter__has_includes(f));
	filter__free(f);
}

static void test_includes_and_excludes(void **state)
{
	const char *inc[] = { "resolve|normalize|cache", NULL };
	const char *exc[] = { "::drop$", NULL };
	struct filter *f = filter_of(inc, NULL);

	(void)state;
	assert_true(filter__match(f, rust_drop, rust_drop_mangled));
	assert_true(filter__match(f, "napi::normalize_path", NULL));
	assert_false(filter__match(f, "napi::Cache::get", NULL)); /* case-sensitive */
	assert_false(filter__match(f, NULL, "main"));
	filter__free(f);

	f = filter_of(inc, exc);
	assert_false(filter__match(f, rust_drop, rust_drop_mangled)); /* exclude wins */
	assert_true(filter__match(f, "resolver::Cache::resolve", NULL));
	filter__free(f);

	f = filter_of(NULL, exc); /* excludes only: everything else stays */
	assert_false(filter__match(f, rust_drop, NULL));
	assert_true(filter__match(f, "main", NULL));
	filter__free(f);
}

static void test_mangled_or_demangled(void **state)
{
	const char *inc[] = { "^_ZN56_", NULL };
	const char *exc[] = { "17h3f598a9d70d5f208E$", NULL };
	struct filter *f = filter_of(inc, NULL);

	(void)state;
	assert_true(filter__match(f, rust_drop, rust_drop_mangled));
	assert_false(filter__match(f, rust_drop, NULL));
	filter__free(f);
	f = filter_of(NULL, exc); /* an exclude on the mangled name hides it */
	assert_false(filter__match(f, rust_drop, rust_drop_mangled));
	assert_true(filter__match(f, rust_drop, "_ZN3fooE"));
	filter__free(f);
}

static void test_exact(void **state)
{
	struct filter *f = filter__new();
	const char *name = "std::vector<int>::operator[](unsigned long) const";
	bool exclude = true;

	(void)state;
	assert_int_equal(filter__add_exact(f, name, false, err, sizeof(err)), 0);
	assert_string_equal(filter__pattern(f, 0, &exclude),
			    "^std::vector<int>::operator\\[]\\(unsigned long\\) const$");
	assert_false(exclude);
	assert_true(filter__match(f, name, NULL));
	assert_false(filter__match(f, "x std::vector<int>::operator[](unsigned long) const", NULL));
	assert_false(filter__match(f, "std::vector<int>::operator[](unsigned long) const&", NULL));
	assert_int_equal(filter__add_exact(f, "a.b*c+d?e{1}|f^g$h\\i", false, err, sizeof(err)), 0);
	assert_true(filter__match(f, "a.b*c+d?e{1}|f^g$h\\i", NULL));
	assert_false(filter__match(f, "aXbbc+d?e{1}|f^g$h\\i", NULL));
	filter__free(f);
}

static void test_regex_errors(void **state)
{
	struct filter *f = filter__new();

	(void)state;
	assert_int_equal(filter__add(f, "a(b)c(d", false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "bad regex 'a(b)c(d': Unmatched ( or \\( at offset 5 ('(d')");
	assert_int_equal(filter__add(f, "ns::get[", false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'ns::get['"));
	assert_non_null(strstr(err, "at offset 7"));
	assert_int_equal(filter__add(f, "*drop", true, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "Invalid preceding regular expression at offset 0"));
	assert_int_equal(filter__add(f, "fn_\\d+", false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'\\d' is not a POSIX extended regex escape"));
	assert_int_equal(filter__add(f, "", false, err, sizeof(err)), -EINVAL);
	/* inside brackets a backslash is literal; \w \s \b are glibc's */
	assert_int_equal(filter__add(f, "[\\d]|\\w+\\s\\b", false, err, sizeof(err)), 0);
	assert_int_equal(filter__count(f), 1);
	filter__free(f);
}

/* Found by fuzzing: stacked quantifiers made glibc's regcomp take > 2 GB. */
static void test_regex_blowup_rejected(void **state)
{
	struct filter *f = filter__new();

	(void)state;
	assert_int_equal(filter__add(f, "\\(+++++++++++++++++++++++++b", false, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "stacked repetition at offset 3"));
	assert_int_equal(filter__add(f, "x{9}{9}", false, err, sizeof(err)), -EINVAL);
	assert_int_equal(filter__add(f, "(a{40}){40}", false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "repetition too large"));
	assert_int_equal(filter__add(f, "^ab*c?d+e{2,5}$", false, err, sizeof(err)), 0);
	assert_int_equal(filter__count(f), 1);
	filter__free(f);
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static char *tmp_path(void)
{
	static char path[64];
	int fd;

	strcpy(path, "/tmp/test_filter.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return path;
}

static void test_load_file(void **state)
{
	char *path = tmp_path();
	struct filter *f = filter__new();
	bool exclude;

	(void)state;
	write_text(path,
		   "# build-id: ABCDEF01\n"
		   "# object: /opt/app/libnapi.so\n"
		   "\n"
		   "   # an indented comment\n"
		   "resolve|normalize\r\n"
		   "  cache  \n"
		   "! ::drop$\n"
		   "!^_ZN4core\n");
	assert_int_equal(filter__load_file(f, path, NULL, "abcdef01", err, sizeof(err)), 0);
	assert_int_equal(filter__count(f), 4);
	assert_string_equal(filter__pattern(f, 1, &exclude), "cache");
	assert_false(exclude);
	assert_string_equal(filter__pattern(f, 2, &exclude), "::drop$");
	assert_true(exclude);
	assert_true(filter__match(f, "resolver::Cache::resolve", NULL));
	assert_false(filter__match(f, rust_drop, NULL));
	assert_false(
		filter__match(f, "core::ptr::cache", "_ZN4core3ptr5cache17h3f598a9d70d5f208E"));
	filter__free(f);
	unlink(path);
}

static void test_stale_build_id(void **state)
{
	char *path = tmp_path();
	struct filter *f = filter__new();

	(void)state;
	write_text(path, "# object: /opt/app/libnapi.so\n# build-id: 1111\nresolve\n");
	assert_int_equal(filter__load_file(f, path, NULL, "2222", err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "is stale"));
	assert_non_null(strstr(err, "build-id 1111 (/opt/app/libnapi.so)"));
	assert_non_null(strstr(err, "has build-id 2222"));
	assert_int_equal(filter__count(f), 1); /* still loaded: the caller decides */
	filter__free(f);

	f = filter__new(); /* nothing to compare against: not stale */
	assert_int_equal(filter__load_file(f, path, NULL, "", err, sizeof(err)), 0);
	assert_int_equal(filter__load_file(f, path, NULL, NULL, err, sizeof(err)), 0);
	write_text(path, "resolve\n");
	assert_int_equal(filter__load_file(f, path, NULL, "2222", err, sizeof(err)), 0);
	filter__free(f);
	unlink(path);
}

static void test_load_errors(void **state)
{
	char *path = tmp_path();
	char want[256];
	struct filter *f = filter__new();

	(void)state;
	write_text(path, "# header\nresolve\n(cache\n");
	assert_int_equal(filter__load_file(f, path, NULL, NULL, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s:3: bad regex '(cache': Unmatched ( or \\( at offset 0 ('(cache')", path);
	assert_string_equal(err, want);
	write_text(path, "!\n");
	assert_int_equal(filter__load_file(f, path, NULL, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: '!' without a pattern"));
	unlink(path);
	assert_int_equal(filter__load_file(f, path, NULL, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot open filter file"));
	filter__free(f);
}

static void test_write_round_trip(void **state)
{
	const char *inc[] = { "#hash", "!bang", " lead", "trail\t", "a\\ ", "resolve|cache", NULL };
	const char *exc[] = { " drop", "#x", NULL };
	const char *names[] = { "#hash", "!bang",	   " lead", "trail\t", "a ",
				"a",	 "Cache::resolve", " drop", "x drop",  "#x",
				"lead",	 "trail",	   NULL };
	struct filter *f = filter_of(inc, exc), *g = filter__new();
	char *path = tmp_path();

	(void)state;
	assert_int_equal(filter__write_file(f, path, "/opt/app/lib x.so", "abcd", err, sizeof(err)),
			 0);
	assert_int_equal(filter__load_file(g, path, NULL, "ABCD", err, sizeof(err)), 0);
	assert_int_equal(filter__count(g), filter__count(f));
	for (size_t i = 0; i < filter__count(f); i++) {
		bool ef, eg;

		filter__pattern(f, i, &ef);
		filter__pattern(g, i, &eg);
		assert_int_equal(ef, eg);
	}
	for (const char **n = names; *n; n++)
		assert_int_equal(filter__match(f, *n, NULL), filter__match(g, *n, NULL));
	assert_int_equal(filter__load_file(g, path, NULL, "abce", err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "(/opt/app/lib x.so)"));
	/* Stale only for an object of the file name it was written for: a run
	 * applies one filter file to an executable and all its libraries. */
	assert_int_equal(filter__load_file(g, path, "/srv/lib x.so", "abce", err, sizeof(err)),
			 -ESTALE);
	assert_int_equal(
		filter__load_file(g, path, "/opt/app/libother.so", "abce", err, sizeof(err)), 0);
	filter__free(g);
	filter__free(f);
	unlink(path);
	assert_int_equal(filter__write_file(f = filter__new(), "/nonexistent/dir/f", NULL, NULL,
					    err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "cannot write filter file '/nonexistent/dir/f'"));
	filter__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_includes_selects_all),
		cmocka_unit_test(test_includes_and_excludes),
		cmocka_unit_test(test_mangled_or_demangled),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_regex_errors),
		cmocka_unit_test(test_regex_blowup_rejected),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_stale_build_id),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_write_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
