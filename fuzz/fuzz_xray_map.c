// SPDX-License-Identifier: MIT
/* fuzz_xray_map.c: libFuzzer target for the XRay map decoder, which reads
 * a section image straight from untrusted files.  Build and run from the
 * repository root:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Iinclude -Iuser fuzz/fuzz_xray_map.c user/xray_map.c user/elf_object.c -lelf -o fuzz_xray_map
 *   ./fuzz_xray_map -max_total_time=30
 *
 * The first 8 input bytes choose the section address, so that wrapping
 * PC-relative arithmetic is exercised too; the rest is the section. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "object/xray_map.h"

/* Invariants every successful decode must keep; a violation aborts so the
 * fuzzer reports it as a crash. */
static void check(const struct xray_map *m, size_t entries)
{
	size_t sleds = 0;

	if (m->nfuncs > entries || m->nsleds + m->ignored_sleds != entries)
		abort();
	for (size_t i = 0; i < m->nfuncs; i++) {
		const struct xray_function *f = &m->funcs[i];

		if (f->id != i + 1 || f->first_sled != sleds ||
		    f->nsleds != f->nentry + f->nexit + f->ntail)
			abort();
		sleds += f->nsleds;
	}
	if (sleds != m->nsleds)
		abort();
	for (size_t i = 0; i < m->nsleds; i++)
		if (m->sleds[i].kind > XRAY_SLED_TAIL)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t sect_addr = 0;
	struct xray_map *map = NULL;
	char err[256];

	if (size >= 8) {
		memcpy(&sect_addr, data, 8);
		data += 8;
		size -= 8;
	}
	if (xray_map__parse(data, size, sect_addr, &map, err, sizeof(err)) == 0) {
		check(map, size / 32);
		xray_map__free(map);
	} else if (map) {
		abort();
	}
	return 0;
}
