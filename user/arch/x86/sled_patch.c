// SPDX-License-Identifier: MIT
/* sled_patch.c: see sled_patch.h.  The expected bytes are what LLVM emits
 * for x86-64 sleds in map version 2 (clang 14 through rustc's LLVM):
 * entry and tail sleds `jmp +9; nopw 0x200(%rax,%rax,1)`, exit sleds
 * `ret; cs nopw 0x200(%rax,%rax,1)`.  Any other byte means something we do
 * not understand rewrote the sled (an XRay runtime, a hot patcher, another
 * compiler), so the object is left alone. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arch/x86/sled_patch.h"

#define N SLED_PATCH_BYTES
#define KNOWN_VERSION 2

static const uint8_t entry_sled[N] = { 0xeb, 0x09, 0x66, 0x0f, 0x1f, 0x84,
				       0x00, 0x00, 0x02, 0x00, 0x00 };
static const uint8_t exit_sled[N] = { 0xc3, 0x2e, 0x66, 0x0f, 0x1f, 0x84,
				      0x00, 0x00, 0x02, 0x00, 0x00 };
/* nop5 (0f 1f 44 00 00) then nop6 (66 0f 1f 44 00 00) */
static const uint8_t entry_nop5[N] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0x66,
				       0x0f, 0x1f, 0x44, 0x00, 0x00 };
/* nop5, ret, nop5 */
static const uint8_t exit_nop5[N] = { 0x0f, 0x1f, 0x44, 0x00, 0x00, 0xc3,
				      0x0f, 0x1f, 0x44, 0x00, 0x00 };

static const char *kind_name(uint8_t kind)
{
	return kind == XRAY_SLED_ENTRY ? "entry" : kind == XRAY_SLED_EXIT ? "exit" : "tail";
}

static int check_sled(const struct xray_sled *s, const uint8_t *image, size_t size, char *why,
		      size_t whylen)
{
	const uint8_t *want = s->kind == XRAY_SLED_EXIT ? exit_sled : entry_sled;
	const uint8_t *got;
	char hex[3 * N + 1];

	if (s->file_offset > size || size - s->file_offset < N) {
		snprintf(why, whylen, "%s sled at 0x%llx lies outside the file", kind_name(s->kind),
			 (unsigned long long)s->addr);
		return -ERANGE;
	}
	got = image + s->file_offset;
	if (!memcmp(got, want, N))
		return 0;
	for (int i = 0; i < N; i++)
		snprintf(hex + 3 * i, sizeof(hex) - 3 * (size_t)i, "%02x%s", got[i],
			 i + 1 < N ? " " : "");
	snprintf(why, whylen, "%s sled at 0x%llx reads %s, not the expected XRay pattern",
		 kind_name(s->kind), (unsigned long long)s->addr, hex);
	return -EILSEQ;
}

int sled_patch__apply(const struct xray_map *map, uint8_t *image, size_t size, char *why,
		      size_t whylen)
{
	if (map->version != KNOWN_VERSION) {
		snprintf(why, whylen, "XRay map version %u has no known sled layout", map->version);
		return -ENOTSUP;
	}
	for (size_t i = 0; i < map->nsleds; i++) {
		int err = check_sled(&map->sleds[i], image, size, why, whylen);

		if (err)
			return err;
	}
	for (size_t i = 0; i < map->nsleds; i++) {
		const struct xray_sled *s = &map->sleds[i];

		memcpy(image + s->file_offset, s->kind == XRAY_SLED_EXIT ? exit_nop5 : entry_nop5,
		       N);
	}
	return 0;
}
