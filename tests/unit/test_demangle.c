// SPDX-License-Identifier: MIT
/* test_demangle.c: display names for real mangled symbols.  The Rust names
 * come from a small crate built with rustc -Zinstrument-xray=always and
 * -C symbol-mangling-version=legacy and v0; the C++ names from clang++
 * -fxray-instrument and g++ -O2 (clone suffixes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "object/demangle.h"

static void expect_name(const char *mangled, const char *want)
{
	char *got = demangle(mangled);

	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_rust_legacy(void **state)
{
	(void)state;
	expect_name(
		"_ZN68_$LT$napi_demo..resolver..Cache$u20$as$u20$core..ops..drop..Drop$GT$"
		"4drop17h3f598a9d70d5f208E",
		"<napi_demo::resolver::Cache as core::ops::drop::Drop>::drop");
	expect_name("_ZN9napi_demo8resolver5Cache7resolve17h0c85eb920f359d60E",
		    "napi_demo::resolver::Cache::resolve");
	expect_name(
		"_ZN4core3ptr47drop_in_place$LT$napi_demo..resolver..Cache$GT$17h27ee605b3ef58c95E",
		"core::ptr::drop_in_place<napi_demo::resolver::Cache>");
}

/* libiberty reads hashes with fewer than 5 distinct digits as C++ and keeps
 * them (and the $LT$ escapes); the names must look like any other. */
static void test_rust_legacy_short_hash(void **state)
{
	(void)state;
	expect_name("_ZN9napi_demo8resolver5Cache7resolve17h0000000000000001E",
		    "napi_demo::resolver::Cache::resolve");
	expect_name(
		"_ZN68_$LT$napi_demo..resolver..Cache$u20$as$u20$core..ops..drop..Drop$GT$"
		"4drop17h0000000000000000E",
		"<napi_demo::resolver::Cache as core::ops::drop::Drop>::drop");
	expect_name("_ZN9napi_demo5entry17h1111222211112222E", "napi_demo::entry");
}

static void test_rust_v0(void **state)
{
	(void)state;
	expect_name(
		"_RNvXNtCs5cbeBw0auGR_9napi_demo8resolverNtB2_5CacheNtNtNtCsgEmfK2I1SDS_"
		"4core3ops4drop4Drop4drop",
		"<napi_demo::resolver::Cache as core::ops::drop::Drop>::drop");
	expect_name("_RNvMs_NtCs5cbeBw0auGR_9napi_demo8resolverNtB4_5Cache7resolve",
		    "<napi_demo::resolver::Cache>::resolve");
	expect_name(
		"_RINvMs_NtCs5cbeBw0auGR_9napi_demo8resolverNtB5_5Cache9normalizeNtNtCs"
		"lNYArtu3iFV_5alloc6string6StringEB7_",
		"<napi_demo::resolver::Cache>::normalize::<alloc::string::String>");
}

static void test_cpp(void **state)
{
	(void)state;
	expect_name("_ZN2ns3sumIiLi3EEET_RKSt6vectorIS1_SaIS1_EE",
		    "int ns::sum<int, 3>(std::vector<int, std::allocator<int> > const&)");
	expect_name("_ZNK2ns3BoxISt6vectorIiSaIiEEE3getEv",
		    "ns::Box<std::vector<int, std::allocator<int> > >::get() const");
	expect_name("_ZNK2ns5Cache6lookupERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
		    "ns::Cache::lookup(std::__cxx11::basic_string<char, std::char_traits<char>, "
		    "std::allocator<char> > const&) const");
	expect_name("_ZN2ns3BoxISt6vectorIiSaIiEEED2Ev",
		    "ns::Box<std::vector<int, std::allocator<int> > >::~Box()");
	/* clang and GCC spell lambdas differently. */
	expect_name("_ZZ3runiENK3$_0clEi", "run(int)::$_0::operator()(int) const");
	expect_name("_ZZ3runiENKUliE_clEi", "run(int)::{lambda(int)#1}::operator()(int) const");
}

static void test_suffixes(void **state)
{
	(void)state;
	expect_name("_Z3runi.cold", "run(int) [clone .cold]");
	expect_name(
		"_ZZ3runiENKUliE_clEi.constprop.0.isra.0",
		"run(int)::{lambda(int)#1}::operator()(int) const [clone .constprop.0] [clone .isra.0]");
	expect_name("_Z3runi.llvm.1234567890", "run(int)");
	expect_name("_Z3runi.llvm.12.cold", "run(int) [clone .cold]");
	expect_name("_Z3runi.", "run(int)");
	expect_name("_ZNSt6thread6_StateD1Ev@@GLIBCXX_3.4.22",
		    "std::thread::_State::~_State()@@GLIBCXX_3.4.22");
	expect_name("_Z3runi.cold@V1", "run(int) [clone .cold]@V1");
	expect_name("_ZN9napi_demo8resolver5Cache7resolve17h0c85eb920f359d60E.llvm.99",
		    "napi_demo::resolver::Cache::resolve");
	expect_name("_ZN9napi_demo5entry17h0000000000000001E.cold.1",
		    "napi_demo::entry [clone .cold.1]");
	expect_name("_RNvCs5cbeBw0auGR_9napi_demo5entry.llvm.42", "napi_demo::entry");
	expect_name("_RNvCs5cbeBw0auGR_9napi_demo5entry.cold", "napi_demo::entry [clone .cold]");
}

static void test_not_mangled(void **state)
{
	(void)state;
	expect_name("main", NULL);
	expect_name("resolve_cache", NULL);
	expect_name("helper.cold", NULL);
	expect_name("", NULL);
	expect_name("_Z", NULL);
	expect_name("_R", NULL);
	expect_name("_ZZZ", NULL);
	assert_null(demangle(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rust_legacy), cmocka_unit_test(test_rust_legacy_short_hash),
		cmocka_unit_test(test_rust_v0),	    cmocka_unit_test(test_cpp),
		cmocka_unit_test(test_suffixes),    cmocka_unit_test(test_not_mangled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
