// SPDX-License-Identifier: MIT
/* x86_walk.c: test tool for x86_leaf.c.  For every sized function symbol
 * of an ELF file it prints the instruction starts the length decoder finds
 * ("I addr"), where it gives up ("U addr"), and its leaf verdict
 * ("L addr 0|1"), so tests/check_x86_decoder.py can hold them against
 * objdump's disassembly of the same file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "object/elf_object.h"
#include "arch/x86/x86_leaf.h"

static void walk(const struct elf_object *obj, const struct elf_symbol *s)
{
	uint8_t *code = malloc(s->size);
	uint64_t off;
	size_t at = 0;

	if (!code || elf_object__vaddr_to_offset(obj, s->addr, &off) ||
	    elf_object__read_vaddr(obj, s->addr, code, s->size)) {
		free(code);
		return;
	}
	while (at < s->size) {
		size_t n = x86_insn_length(code + at, s->size - at);

		if (!n) {
			printf("U %" PRIx64 "\n", s->addr + at);
			break;
		}
		printf("I %" PRIx64 "\n", s->addr + at);
		at += n;
	}
	printf("L %" PRIx64 " %d\n", s->addr, x86_is_leaf(code, s->size, s->addr, NULL, 0));
	free(code);
}

int main(int argc, char **argv)
{
	struct elf_object *obj;
	char err[512];

	if (argc != 2 || elf_object__open(argv[1], &obj, err, sizeof(err))) {
		fprintf(stderr, "usage: x86_walk ELF (%s)\n", argc == 2 ? err : "");
		return 2;
	}
	for (size_t i = 0; i < elf_object__symbol_count(obj); i++) {
		const struct elf_symbol *s = elf_object__symbol(obj, i);

		if (s->defined_func && s->size && s->size < (1u << 20))
			walk(obj, s);
	}
	elf_object__free(obj);
	return 0;
}
