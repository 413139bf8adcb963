// SPDX-License-Identifier: MIT
/* test_cgr.c: code-graph-rag's bare names for real demangled names (as
 * `sledtrace report` shows them for tests/fixtures/rust_shapes.rs under
 * legacy and v0 mangling, and for cpp_shapes.cc and exception.cc built
 * with clang++; GCC spellings of lambdas and anonymous namespaces too),
 * and the edges cgr__write draws through frames outside the repo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/cgr.h"
#include "format/cgr_names.h"
#include "model/calltree.h"

struct case_ {
	const char *demangled, *bare;
	bool anonymous;
};

static void check(enum cgr_lang lang, const struct case_ *c, size_t n)
{
	char out[256];

	for (size_t i = 0; i < n; i++) {
		bool anon = cgr_names__bare(lang, c[i].demangled, out, sizeof(out));

		if (strcmp(out, c[i].bare) || anon != c[i].anonymous)
			fail_msg("%s -> '%s' (anonymous %d), want '%s' (%d)", c[i].demangled, out,
				 anon, c[i].bare, c[i].anonymous);
	}
}

static void test_rust(void **state)
{
	static const struct case_ cases[] = {
		/* legacy mangling */
		{ "<rust_shapes::Dog as rust_shapes::Animal>::speak", "speak", false },
		{ "<rust_shapes::Dog as core::ops::drop::Drop>::drop", "drop", false },
		{ "rust_shapes::call_dyn", "call_dyn", false },
		{ "rust_shapes::main::{{closure}}", "{{closure}}", true },
		{ "rust_shapes::measure::hd26d7fb91c43dcc2", "measure", false },
		{ "rust_shapes::measure::h1b09c4efc9497dcd", "measure", false },
		{ "core::ptr::drop_in_place<rust_shapes::Dog>", "drop_in_place", false },
		{ "core::ptr::drop_in_place<alloc::vec::Vec<alloc::boxed::Box<dyn "
		  "rust_shapes::Animal>>>",
		  "drop_in_place", false },
		{ "__rustc::__rust_alloc", "__rust_alloc", false },
		{ "main", "main", false },
		/* v0 mangling */
		{ "rust_shapes::main::{closure#0}", "{closure#0}", true },
		{ "rust_shapes::measure::<u32>", "measure", false },
		{ "rust_shapes::measure::<alloc::string::String>", "measure", false },
		{ "core::ptr::drop_in_place::<rust_shapes::Dog>", "drop_in_place", false },
		{ "<rust_shapes::Cat as rust_shapes::Animal>::speak", "speak", false },
		{ "rust_shapes::make_dog", "make_dog", false },
	};

	(void)state;
	check(CGR_RUST, cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_cpp(void **state)
{
	static const struct case_ cases[] = {
		/* clang++, cpp_shapes.cc and exception.cc */
		{ "Dog::sound() const", "sound", false },
		{ "Cat::sound() const", "sound", false },
		{ "shapes::area(double)", "area", false },
		{ "int twice<int>(int)", "twice", false },
		{ "double twice<double>(double)", "twice", false },
		{ "int apply<main::$_0>(main::$_0 const&, int)", "apply", false },
		{ "main::$_0::operator()(int) const", "lambda", true },
		{ "thrower(int)", "thrower", false },
		{ "scale(double)", "scale", false },
		{ "main", "main", false },
		/* operators, special members, GCC spellings */
		{ "Dog::operator==(Dog const&) const", "operator==", false },
		{ "std::ostream& operator<< <char>(std::ostream&, Dog const&)", "operator<<",
		  false },
		{ "Vec::operator[](unsigned long)", "operator[]", false },
		{ "Dog::~Dog()", "~Dog", false },
		{ "Dog::Dog(int)", "Dog", false },
		{ "(anonymous namespace)::helper(int)", "helper", false },
		{ "ns::(anonymous namespace)::Box<int>::get() const", "get", false },
		{ "main::{lambda(int)#1}::operator()(int) const", "lambda", true },
		{ "std::vector<int, std::allocator<int> >::push_back(int const&)", "push_back",
		  false },
	};

	(void)state;
	check(CGR_CPP, cases, sizeof(cases) / sizeof(cases[0]));
}

/* main (in repo) -> std::helper (outside) -> work (in repo) -> closure
 * (anonymous) -> leaf (in repo): edges main->work and work->leaf. */
static void test_see_through(void **state)
{
	const struct trace_function fns[] = {
		{ 1, "main", "/repo/src/main.rs", 3 },
		{ 2, "std::iter::map<T>", "/rustc/abc/library/core/src/iter.rs", 10 },
		{ 3, "app::work::<u32>", "/repo/src/../src/work.rs", 7 },
		{ 4, "app::work::{closure#0}", "/repo/src/work.rs", 8 },
		{ 5, "app::leaf", "/repo/src/leaf.rs", 1 },
		{ 6, "gen::f", "/repo-other/gen.rs", 1 },
	};
	const struct trace_thread th = { .pid = 1, .tid = 1, .name = "t", .process_name = "p" };
	struct frame stack[5];
	struct calltree *ct;
	struct frame_sink s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(calltree__new(&ct), 0);
	s = calltree__sink(ct);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(s.ops->function(s.ctx, &fns[i]), 0);
	for (int rep = 0; rep < 2; rep++) {
		for (uint32_t d = 1; d <= 5; d++) {
			stack[d - 1] = (struct frame){ .fid = d == 5 && rep ? 6 : d,
						       .begin_ns = d };
			assert_int_equal(s.ops->enter(s.ctx, &th, stack, d), 0);
		}
		for (uint32_t d = 5; d >= 1; d--)
			assert_int_equal(s.ops->leave(s.ctx, &th, stack, d, 100, FRAME_RETURNED),
					 0);
	}
	assert_non_null(f = open_memstream(&buf, &len));
	assert_int_equal(cgr__write(ct, "/repo/", f), 0);
	fclose(f);
	assert_string_equal(
		buf,
		"{\"kind\":\"header\",\"version\":1,\"language\":\"rust\",\"repo_root\":\"/repo\","
		"\"tracer\":\"sledtrace\",\"sampled\":false}\n"
		"{\"kind\":\"call\",\"caller\":{\"path\":\"/repo/src/main.rs\",\"qualname\":\"main\","
		"\"line\":3},\"callee\":{\"path\":\"/repo/src/work.rs\",\"qualname\":\"work\","
		"\"line\":7},\"count\":2,\"workloads\":[],\"receiver_types\":[]}\n"
		"{\"kind\":\"call\",\"caller\":{\"path\":\"/repo/src/work.rs\",\"qualname\":\"work\","
		"\"line\":7},\"callee\":{\"path\":\"/repo/src/leaf.rs\",\"qualname\":\"leaf\","
		"\"line\":1},\"count\":1,\"workloads\":[],\"receiver_types\":[]}\n");
	free(buf);
	calltree__free(ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rust),
		cmocka_unit_test(test_cpp),
		cmocka_unit_test(test_see_through),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
