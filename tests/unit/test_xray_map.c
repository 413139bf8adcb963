// SPDX-License-Identifier: MIT
/* test_xray_map.c: xray_map__parse on hand-built section images, covering
 * the three entry versions, id numbering, kinds and malformed sizes.  Real
 * binaries are checked by the fixture tests; here every byte is known. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "object/xray_map.h"

#define SECT 0x10000ull /* section vaddr used by every image */
#define MAXE 16

struct img {
	uint8_t b[MAXE * 32];
	size_t n;
};

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Appends one entry; version >= 2 stores the addresses relative to each
 * field as LLVM does, older versions store them as given. */
static void add(struct img *im, uint64_t sled, uint64_t fn, uint8_t kind, uint8_t version)
{
	uint8_t *e = im->b + im->n * 32;
	uint64_t at = SECT + im->n * 32;

	memset(e, 0, 32);
	put64(e, version >= 2 ? sled - at : sled);
	put64(e + 8, version >= 2 ? fn - (at + 8) : fn);
	e[16] = kind;
	e[17] = 1;
	e[18] = version;
	im->n++;
}

static struct xray_map *parse_ok(const struct img *im)
{
	struct xray_map *map = NULL;
	char err[256];

	assert_int_equal(xray_map__parse(im->b, im->n * 32, SECT, &map, err, sizeof(err)), 0);
	assert_non_null(map);
	return map;
}

static void check_fn(const struct xray_map *m, uint32_t id, uint64_t addr, uint32_t e, uint32_t x,
		     uint32_t t)
{
	const struct xray_function *f = &m->funcs[id - 1];

	assert_int_equal(f->id, id);
	assert_int_equal(f->addr, addr);
	assert_int_equal(f->nentry, e);
	assert_int_equal(f->nexit, x);
	assert_int_equal(f->ntail, t);
	assert_int_equal(f->nsleds, e + x + t);
}

static void test_v2_pc_relative(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	/* Sleds below the section (the usual layout) need negative offsets. */
	add(&im, 0x1000, 0x1000, XRAY_SLED_ENTRY, 2);
	add(&im, 0x1020, 0x1000, XRAY_SLED_EXIT, 2);
	add(&im, 0x1030, 0x1030, XRAY_SLED_ENTRY, 2);
	add(&im, 0x1040, 0x1030, XRAY_SLED_TAIL, 2);
	add(&im, 0x20000, 0x20000, XRAY_SLED_ENTRY, 2);
	m = parse_ok(&im);
	assert_int_equal(m->nfuncs, 3);
	assert_int_equal(m->nsleds, 5);
	assert_int_equal(m->version, 2);
	assert_int_equal(m->ignored_sleds, 0);
	check_fn(m, 1, 0x1000, 1, 1, 0);
	check_fn(m, 2, 0x1030, 1, 0, 1);
	check_fn(m, 3, 0x20000, 1, 0, 0);
	assert_int_equal(m->sleds[1].addr, 0x1020);
	assert_int_equal(m->sleds[1].kind, XRAY_SLED_EXIT);
	assert_int_equal(m->sleds[3].addr, 0x1040);
	assert_int_equal(m->funcs[1].first_sled, 2);
	assert_int_equal(m->funcs[2].first_sled, 4);
	xray_map__free(m);
}

static void test_v0_v1_absolute(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	add(&im, 0x401000, 0x401000, XRAY_SLED_ENTRY, 0);
	add(&im, 0x401010, 0x401000, XRAY_SLED_EXIT, 0);
	add(&im, 0x401020, 0x401020, XRAY_SLED_ENTRY, 1);
	add(&im, 0x401030, 0x401020, XRAY_SLED_EXIT, 1);
	m = parse_ok(&im);
	assert_int_equal(m->version, 1);
	assert_int_equal(m->nfuncs, 2);
	check_fn(m, 1, 0x401000, 1, 1, 0);
	check_fn(m, 2, 0x401020, 1, 1, 0);
	assert_int_equal(m->sleds[3].addr, 0x401030);
	/* parse has no object, hence no file offsets. */
	assert_int_equal(m->sleds[3].file_offset, 0);
	xray_map__free(m);
}

static void test_mixed_versions(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	add(&im, 0x5000, 0x5000, XRAY_SLED_ENTRY, 1);
	add(&im, 0x5010, 0x5000, XRAY_SLED_EXIT, 2);
	m = parse_ok(&im);
	assert_int_equal(m->version, 2);
	assert_int_equal(m->nfuncs, 1);
	check_fn(m, 1, 0x5000, 1, 1, 0);
	xray_map__free(m);
}

/* Ids follow changes of `function`, not distinct values: a function whose
 * sleds are split in two runs gets two ids, like LLVM's runtime gives it. */
static void test_ids_follow_changes(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	add(&im, 0x100, 0x100, XRAY_SLED_ENTRY, 2);
	add(&im, 0x200, 0x200, XRAY_SLED_ENTRY, 2);
	add(&im, 0x110, 0x100, XRAY_SLED_EXIT, 2);
	m = parse_ok(&im);
	assert_int_equal(m->nfuncs, 3);
	check_fn(m, 1, 0x100, 1, 0, 0);
	check_fn(m, 2, 0x200, 1, 0, 0);
	check_fn(m, 3, 0x100, 0, 1, 0);
	xray_map__free(m);
}

static void test_ignored_kinds(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	add(&im, 0x100, 0x100, XRAY_SLED_ENTRY, 2);
	add(&im, 0x108, 0x100, 3, 2); /* LOG_ARGS_ENTER */
	add(&im, 0x110, 0x100, 4, 2); /* CUSTOM_EVENT */
	add(&im, 0x118, 0x100, 5, 2); /* TYPED_EVENT */
	add(&im, 0x120, 0x100, XRAY_SLED_EXIT, 2);
	/* A function seen only through ignored sleds still takes an id, so
	 * later ids stay equal to LLVM's. */
	add(&im, 0x200, 0x200, 200, 2);
	add(&im, 0x300, 0x300, XRAY_SLED_ENTRY, 2);
	m = parse_ok(&im);
	assert_int_equal(m->ignored_sleds, 4);
	assert_int_equal(m->nsleds, 3);
	assert_int_equal(m->nfuncs, 3);
	check_fn(m, 1, 0x100, 1, 1, 0);
	check_fn(m, 2, 0x200, 0, 0, 0);
	check_fn(m, 3, 0x300, 1, 0, 0);
	assert_int_equal(m->funcs[2].first_sled, 2);
	for (size_t i = 0; i < m->nsleds; i++)
		assert_true(m->sleds[i].kind <= XRAY_SLED_TAIL);
	xray_map__free(m);
}

static void test_bad_sizes(void **state)
{
	static const size_t sizes[] = { 1, 31, 33, 63, 65 };
	struct img im = { .n = 0 };
	struct xray_map *m = (struct xray_map *)&im; /* must be reset to NULL */
	char err[256] = "";

	(void)state;
	add(&im, 0x100, 0x100, XRAY_SLED_ENTRY, 2);
	add(&im, 0x110, 0x100, XRAY_SLED_EXIT, 2);
	add(&im, 0x120, 0x120, XRAY_SLED_EXIT, 2);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(xray_map__parse(im.b, sizes[i], SECT, &m, err, sizeof(err)),
				 -EINVAL);
		assert_null(m);
		assert_non_null(strstr(err, "multiple of 32"));
	}
	assert_int_equal(xray_map__parse(im.b, 0, SECT, &m, err, sizeof(err)), -ENODATA);
	assert_null(m);
}

static void test_wrapping_addresses(void **state)
{
	struct img im = { .n = 0 };
	struct xray_map *m;

	(void)state;
	/* Garbage offsets must wrap (unsigned), not trap. */
	memset(im.b, 0xff, 32);
	im.b[16] = XRAY_SLED_ENTRY;
	im.b[18] = 2;
	im.n = 1;
	m = parse_ok(&im);
	assert_int_equal(m->sleds[0].addr, SECT - 1);
	assert_int_equal(m->funcs[0].addr, SECT + 8 - 1);
	xray_map__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v2_pc_relative),
		cmocka_unit_test(test_v0_v1_absolute),
		cmocka_unit_test(test_mixed_versions),
		cmocka_unit_test(test_ids_follow_changes),
		cmocka_unit_test(test_ignored_kinds),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_wrapping_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
