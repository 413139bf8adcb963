// SPDX-License-Identifier: MIT
/* xray_map.c: decodes LLVM's xray_instr_map section into functions and
 * sleds with the file offsets uprobes need.  The decoder works on a plain
 * byte image (xray_map__parse is fuzzed), so it trusts nothing in it: the
 * size, versions, kinds and addresses are all attacker-controlled. */
#include "object/xray_map.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define ENTRY_SIZE 32
#define OFF_ADDRESS 0
#define OFF_FUNCTION 8
#define OFF_KIND 16
#define OFF_VERSION 18

#define SECTION_NAME "xray_instr_map"

/* The dynamic relocations that give absolute (version < 2) entries their
 * link-time value in PIE and shared objects, whose file holds 0 there. */
#define R_X86_64_64_TYPE 1
#define R_X86_64_RELATIVE_TYPE 8
#define R_AARCH64_ABS64_TYPE 257
#define R_AARCH64_RELATIVE_TYPE 1027

struct reloc {
	uint64_t offset;
	uint64_t addend;
};

struct image {
	const uint8_t *data;
	size_t size;
	uint64_t sect_addr;
	const struct reloc *relocs; /* sorted by offset */
	size_t nrelocs;
};

/* The map is little-endian on every XRay target; reading bytewise keeps
 * the decoder free of alignment assumptions. */
static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static const struct reloc *find_reloc(const struct image *img, uint64_t vaddr)
{
	size_t lo = 0, hi = img->nrelocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->relocs[mid].offset < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < img->nrelocs && img->relocs[lo].offset == vaddr ? &img->relocs[lo] : NULL;
}

/* An address field at byte off of the image.  Unsigned arithmetic wraps,
 * which is both what PC-relative negative offsets need and well defined on
 * garbage. */
static uint64_t read_addr(const struct image *img, size_t off, bool pcrel)
{
	uint64_t raw = le64(img->data + off);
	uint64_t vaddr = img->sect_addr + off;
	const struct reloc *r;

	if (pcrel)
		return vaddr + raw;
	r = find_reloc(img, vaddr);
	return r ? r->addend : raw;
}

static struct xray_function *start_function(struct xray_map *map, uint64_t addr)
{
	struct xray_function *f = &map->funcs[map->nfuncs];

	*f = (struct xray_function){
		.id = (uint32_t)(map->nfuncs + 1),
		.addr = addr,
		.first_sled = (uint32_t)map->nsleds,
	};
	map->nfuncs++;
	return f;
}

static void add_sled(struct xray_map *map, struct xray_function *f, uint64_t addr, uint8_t kind)
{
	map->sleds[map->nsleds++] = (struct xray_sled){ .addr = addr, .kind = kind };
	f->nsleds++;
	if (kind == XRAY_SLED_ENTRY)
		f->nentry++;
	else if (kind == XRAY_SLED_EXIT)
		f->nexit++;
	else
		f->ntail++;
}

static void decode_entries(const struct image *img, struct xray_map *map)
{
	struct xray_function *f = NULL;
	size_t n = img->size / ENTRY_SIZE;

	for (size_t i = 0; i < n; i++) {
		size_t off = i * ENTRY_SIZE;
		uint8_t kind = img->data[off + OFF_KIND];
		uint8_t version = img->data[off + OFF_VERSION];
		bool pcrel = version >= 2;
		uint64_t sled = read_addr(img, off + OFF_ADDRESS, pcrel);
		uint64_t fn = read_addr(img, off + OFF_FUNCTION, pcrel);

		if (version > map->version)
			map->version = version;
		/* Ids follow LLVM's runtime: a new id whenever `function`
		 * changes, counting sleds of every kind. */
		if (!f || fn != f->addr)
			f = start_function(map, fn);
		if (kind > XRAY_SLED_TAIL) {
			map->ignored_sleds++;
			continue;
		}
		add_sled(map, f, sled, kind);
	}
}

static int decode(const struct image *img, struct xray_map **out, char *err, size_t errlen)
{
	size_t n = img->size / ENTRY_SIZE;
	struct xray_map *map;

	*out = NULL;
	if (!img->size) {
		snprintf(err, errlen, "%s has no entries", SECTION_NAME);
		return -ENODATA;
	}
	if (img->size % ENTRY_SIZE) {
		snprintf(err, errlen, "%s is %zu bytes, not a multiple of %d-byte entries",
			 SECTION_NAME, img->size, ENTRY_SIZE);
		return -EINVAL;
	}
	if (n > UINT32_MAX) {
		snprintf(err, errlen, "%s has too many entries (%zu)", SECTION_NAME, n);
		return -E2BIG;
	}
	map = calloc(1, sizeof(*map));
	if (map) {
		map->funcs = calloc(n, sizeof(*map->funcs));
		map->sleds = calloc(n, sizeof(*map->sleds));
	}
	if (!map || !map->funcs || !map->sleds) {
		xray_map__free(map);
		snprintf(err, errlen, "%s: %s", SECTION_NAME, strerror(ENOMEM));
		return -ENOMEM;
	}
	decode_entries(img, map);
	*out = map;
	return 0;
}

/* parse has no object, so file offsets stay 0 and absolute entries keep
 * their raw (unrelocated) values. */
int xray_map__parse(const uint8_t *data, size_t size, uint64_t sect_addr, struct xray_map **out,
		    char *err, size_t errlen)
{
	struct image img = { .data = data, .size = size, .sect_addr = sect_addr };

	return decode(&img, out, err, errlen);
}

void xray_map__free(struct xray_map *map)
{
	if (!map)
		return;
	free(map->funcs);
	free(map->sleds);
	free(map);
}

static Elf_Scn *find_section(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, SECTION_NAME))
			return scn;
	}
	return NULL;
}

static bool has_absolute_entries(const struct image *img)
{
	for (size_t off = 0; off + ENTRY_SIZE <= img->size; off += ENTRY_SIZE)
		if (img->data[off + OFF_VERSION] < 2)
			return true;
	return false;
}

static int cmp_reloc(const void *a, const void *b)
{
	const struct reloc *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

struct reloc_vec {
	struct reloc *v;
	size_t n, cap;
};

static int push_reloc(struct reloc_vec *rv, uint64_t off, uint64_t value)
{
	if (rv->n == rv->cap) {
		size_t ncap = rv->cap ? rv->cap * 2 : 64;
		struct reloc *p = realloc(rv->v, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rv->v = p;
		rv->cap = ncap;
	}
	rv->v[rv->n++] = (struct reloc){ off, value };
	return 0;
}

struct reloc_types {
	unsigned relative, abs64;
};

/* Link-time value a dynamic relocation stores: B + A for RELATIVE (B is 0
 * at link time), S + A for a 64-bit absolute one against a defined symbol
 * (hand-written maps may name a global function instead of a local label). */
static bool reloc_value(Elf *elf, const GElf_Shdr *rela_sh, const GElf_Rela *r,
			const struct reloc_types *t, uint64_t *value)
{
	unsigned type = (unsigned)GELF_R_TYPE(r->r_info);
	Elf_Data *symd;
	GElf_Sym sym;

	if (type == t->relative) {
		*value = (uint64_t)r->r_addend;
		return true;
	}
	if (type != t->abs64 || !GELF_R_SYM(r->r_info))
		return false;
	symd = elf_getdata(elf_getscn(elf, rela_sh->sh_link), NULL);
	if (!symd || !gelf_getsym(symd, (int)GELF_R_SYM(r->r_info), &sym) ||
	    sym.st_shndx == SHN_UNDEF)
		return false;
	*value = sym.st_value + (uint64_t)r->r_addend;
	return true;
}

static int scan_rela(Elf *elf, Elf_Scn *scn, const GElf_Shdr *map_sh, size_t map_size,
		     const struct reloc_types *t, struct reloc_vec *rv)
{
	GElf_Shdr sh;
	Elf_Data *d;
	size_t cnt;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
	    !(d = elf_getdata(scn, NULL)))
		return 0;
	cnt = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < cnt; i++) {
		GElf_Rela r;
		uint64_t value;

		if (!gelf_getrela(d, (int)i, &r))
			break;
		if (r.r_offset < map_sh->sh_addr || r.r_offset - map_sh->sh_addr >= map_size ||
		    !reloc_value(elf, &sh, &r, t, &value))
			continue;
		if (push_reloc(rv, r.r_offset, value))
			return -ENOMEM;
	}
	return 0;
}

/* Collects the dynamic relocations that land inside the map section. */
static int collect_relocs(Elf *elf, const GElf_Shdr *map_sh, struct image *img)
{
	struct reloc_vec rv = { 0 };
	struct reloc_types t = { R_X86_64_RELATIVE_TYPE, R_X86_64_64_TYPE };
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (gelf_getehdr(elf, &eh) && eh.e_machine == EM_AARCH64)
		t = (struct reloc_types){ R_AARCH64_RELATIVE_TYPE, R_AARCH64_ABS64_TYPE };
	while ((scn = elf_nextscn(elf, scn))) {
		if (scan_rela(elf, scn, map_sh, img->size, &t, &rv)) {
			free(rv.v);
			return -ENOMEM;
		}
	}
	if (rv.n)
		qsort(rv.v, rv.n, sizeof(*rv.v), cmp_reloc);
	img->relocs = rv.v;
	img->nrelocs = rv.n;
	return 0;
}

static int set_file_offsets(const struct elf_object *obj, struct xray_map *map, char *err,
			    size_t errlen)
{
	for (size_t i = 0; i < map->nsleds; i++) {
		struct xray_sled *s = &map->sleds[i];

		if (elf_object__vaddr_to_offset(obj, s->addr, &s->file_offset)) {
			snprintf(err, errlen,
				 "%s: XRay sled at 0x%llx is outside the executable segments",
				 elf_object__path(obj), (unsigned long long)s->addr);
			return -EINVAL;
		}
	}
	return 0;
}

static int no_sleds(const char *path, const char *why, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "%s has no XRay sleds (section %s %s): build it with clang -fxray-instrument "
		 "-fxray-instruction-threshold=1 (Rust: RUSTC_BOOTSTRAP=1 rustc "
		 "-Zinstrument-xray=always), or trace its symbols with --no-xray",
		 path, SECTION_NAME, why);
	return -ENODATA;
}

static int locate_image(struct elf_object *obj, struct image *img, GElf_Shdr *sh, char *err,
			size_t errlen)
{
	const char *path = elf_object__path(obj);
	Elf *elf = elf_object__elf(obj);
	Elf_Scn *scn = find_section(elf, sh);
	Elf_Data *d;

	if (!scn)
		return no_sleds(path, "is missing", err, errlen);
	if (gelf_getclass(elf) != ELFCLASS64) {
		snprintf(err, errlen, "%s: only 64-bit objects are supported", path);
		return -ENOTSUP;
	}
	d = sh->sh_type == SHT_NOBITS ? NULL : elf_getdata(scn, NULL);
	if (!d || !d->d_buf || !d->d_size)
		return no_sleds(path, "is empty", err, errlen);
	img->data = d->d_buf;
	img->size = d->d_size;
	img->sect_addr = sh->sh_addr;
	return 0;
}

int xray_map__load(struct elf_object *obj, struct xray_map **out, char *err, size_t errlen)
{
	struct image img = { 0 };
	GElf_Shdr sh;
	char why[256];
	int ret;

	*out = NULL;
	ret = locate_image(obj, &img, &sh, err, errlen);
	if (ret)
		return ret;
	if (elf_object__is_pie_or_dso(obj) && has_absolute_entries(&img) &&
	    collect_relocs(elf_object__elf(obj), &sh, &img)) {
		snprintf(err, errlen, "%s: %s", elf_object__path(obj), strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = decode(&img, out, why, sizeof(why));
	free((void *)img.relocs);
	if (ret) {
		snprintf(err, errlen, "%s: %s", elf_object__path(obj), why);
		return ret;
	}
	ret = set_file_offsets(obj, *out, err, errlen);
	if (ret) {
		xray_map__free(*out);
		*out = NULL;
	}
	return ret;
}

/* Section headers only: no symbols read, so a library without sleds
 * (libc) costs a fraction of a millisecond, not a full open. */
int xray_map__in_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx)) {
		found = -ENOEXEC;
		goto out;
	}
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (gelf_getshdr(scn, &sh) && (name = elf_strptr(elf, shstrndx, sh.sh_name)))
			found = !strcmp(name, SECTION_NAME);
	}
out:
	elf_end(elf);
	close(fd);
	return found;
}
