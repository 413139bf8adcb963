// SPDX-License-Identifier: MIT
/* test_sled_patch.c: sled_patch__apply on crafted images: every sled kind
 * is rewritten to its nop5 form, and one unexpected byte anywhere (or a
 * sled past the end, or an unknown map version) leaves the whole image
 * untouched with a reason naming the sled. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "arch/x86/sled_patch.h"

static const uint8_t entry[] = { 0xeb, 0x09, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 };
static const uint8_t exit_[] = { 0xc3, 0x2e, 0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x02, 0x00, 0x00 };
static const uint8_t entry_nop[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x66,
				     0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t exit_nop[] = {
	0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3, 0x0f, 0x1f, 0x44, 0x00, 0x00
};

struct fixture {
	uint8_t image[128];
	struct xray_sled sleds[3];
	struct xray_map map;
};

/* entry at 0, tail at 32, exit at 64, as one function's sleds. */
static void setup_image(struct fixture *f)
{
	memset(f->image, 0xcc, sizeof(f->image));
	memcpy(f->image, entry, sizeof(entry));
	memcpy(f->image + 32, entry, sizeof(entry));
	memcpy(f->image + 64, exit_, sizeof(exit_));
	f->sleds[0] =
		(struct xray_sled){ .addr = 0x1000, .file_offset = 0, .kind = XRAY_SLED_ENTRY };
	f->sleds[1] =
		(struct xray_sled){ .addr = 0x1020, .file_offset = 32, .kind = XRAY_SLED_TAIL };
	f->sleds[2] =
		(struct xray_sled){ .addr = 0x1040, .file_offset = 64, .kind = XRAY_SLED_EXIT };
	f->map = (struct xray_map){ .sleds = f->sleds, .nsleds = 3, .version = 2 };
}

static void test_rewrites_every_kind(void **state)
{
	struct fixture f;
	char why[256] = "";

	(void)state;
	setup_image(&f);
	assert_int_equal(sled_patch__apply(&f.map, f.image, sizeof(f.image), why, sizeof(why)), 0);
	assert_memory_equal(f.image, entry_nop, sizeof(entry_nop));
	assert_memory_equal(f.image + 32, entry_nop, sizeof(entry_nop));
	assert_memory_equal(f.image + 64, exit_nop, sizeof(exit_nop));
	assert_int_equal(f.image[11], 0xcc); /* nothing past the sled */
}

static void expect_refused(struct fixture *f, int err, const char *reason)
{
	uint8_t before[sizeof(f->image)];
	char why[256] = "";

	memcpy(before, f->image, sizeof(before));
	assert_int_equal(sled_patch__apply(&f->map, f->image, sizeof(f->image), why, sizeof(why)),
			 err);
	assert_memory_equal(f->image, before, sizeof(before));
	assert_non_null(strstr(why, reason));
}

static void test_refuses_any_other_byte(void **state)
{
	struct fixture f;

	(void)state;
	/* the last sled is the bad one: the first two must stay unrewritten */
	for (int i = 0; i < SLED_PATCH_BYTES; i++) {
		setup_image(&f);
		f.image[64 + i] ^= 0x01;
		expect_refused(&f, -EILSEQ, "exit sled at 0x1040 reads");
	}
	setup_image(&f);
	f.image[32 + 8] = 0x03; /* nopw 0x300: still a nop, not XRay's */
	expect_refused(&f, -EILSEQ, "tail sled at 0x1020 reads eb 09 66 0f 1f 84 00 00 03 00 00");
	/* an entry sled holding an exit pattern, and the reverse */
	setup_image(&f);
	memcpy(f.image, exit_, sizeof(exit_));
	expect_refused(&f, -EILSEQ, "entry sled at 0x1000");
	/* already rewritten (twice through) */
	setup_image(&f);
	memcpy(f.image + 64, exit_nop, sizeof(exit_nop));
	expect_refused(&f, -EILSEQ, "exit sled at 0x1040");
}

static void test_refuses_out_of_file_and_versions(void **state)
{
	struct fixture f;

	(void)state;
	setup_image(&f);
	f.sleds[2].file_offset = sizeof(f.image) - 5;
	expect_refused(&f, -ERANGE, "exit sled at 0x1040 lies outside the file");
	setup_image(&f);
	f.sleds[1].file_offset = UINT64_MAX - 3;
	expect_refused(&f, -ERANGE, "tail sled at 0x1020 lies outside the file");
	setup_image(&f);
	f.map.version = 1;
	expect_refused(&f, -ENOTSUP, "version 1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrites_every_kind),
		cmocka_unit_test(test_refuses_any_other_byte),
		cmocka_unit_test(test_refuses_out_of_file_and_versions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
