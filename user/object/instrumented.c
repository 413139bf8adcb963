// SPDX-License-Identifier: MIT
/* instrumented.c: see instrumented.h. */
#include "object/instrumented.h"
#include "object/symbol_map.h"

int instrumented__open(struct instrumented *io, const char *path,
		       const struct instrumented_opts *opts, char *err, size_t errlen)
{
	int ret;

	*io = (struct instrumented){ 0 };
	ret = elf_object__open(path, &io->elf, err, errlen);
	if (!ret && opts->no_xray)
		ret = symbol_map__build(io->elf, opts->debug_dir, &io->map, err, errlen);
	else if (!ret)
		ret = xray_map__load(io->elf, &io->map, err, errlen);
	if (!ret)
		ret = symbols__load(io->elf, io->map, &opts->names, &io->syms, err, errlen);
	if (ret)
		instrumented__close(io);
	return ret;
}

void instrumented__close(struct instrumented *io)
{
	symbols__free(io->syms);
	xray_map__free(io->map);
	elf_object__free(io->elf);
	*io = (struct instrumented){ 0 };
}
