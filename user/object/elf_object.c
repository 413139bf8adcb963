// SPDX-License-Identifier: MIT
/* elf_object.c: one ELF file read through libelf.  Everything attaching and
 * naming need is computed once at open time (loadable segments, build-id,
 * the merged symbol tables, the unwind verdict) so the accessors are cheap
 * and cannot fail. */
#include "object/elf_object.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* pub must stay first: accessors hand out &sym->pub and symbol_at's
 * preference needs the binding, which the public struct does not carry. */
struct sym_entry {
	struct elf_symbol pub;
	unsigned char bind;
};

struct elf_object {
	char *path;
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	GElf_Phdr *loads; /* PT_LOAD headers */
	size_t nloads;
	char build_id[129];
	bool can_unwind;
	/* Sorted by (addr, name), unique; names point into libelf's data. */
	struct sym_entry *syms;
	size_t nsyms;
	/* Defined function symbols: by address (symbol_at), by name (find). */
	struct sym_entry **by_addr;
	struct sym_entry **by_name;
	size_t nfuncs;
	bool has_symtab;	  /* not stripped */
	struct elf_object *debug; /* separate debug file whose names syms uses */
};

static int read_loads(struct elf_object *obj)
{
	size_t n;

	if (elf_getphdrnum(obj->elf, &n))
		return -EINVAL;
	obj->loads = calloc(n ? n : 1, sizeof(*obj->loads));
	if (!obj->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(obj->elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			obj->loads[obj->nloads++] = ph;
	}
	return 0;
}

/* Returns true once a GNU build-id note was found in d. */
static bool scan_notes(struct elf_object *obj, Elf_Data *d)
{
	GElf_Nhdr nh;
	size_t off = 0, name_off, desc_off, next;

	while (d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const char *name = (const char *)d->d_buf + name_off;

		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && !memcmp(name, "GNU", 4) &&
		    nh.n_descsz > 0 && nh.n_descsz <= 64) {
			const unsigned char *p = (const unsigned char *)d->d_buf + desc_off;

			for (size_t i = 0; i < nh.n_descsz; i++)
				snprintf(obj->build_id + 2 * i, 3, "%02x", p[i]);
			return true;
		}
		off = next;
	}
	return false;
}

/* Sections first; program headers cover files whose section headers were
 * stripped. */
static void read_build_id(struct elf_object *obj)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(obj->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE &&
		    scan_notes(obj, elf_getdata(scn, NULL)))
			return;

	size_t n;

	if (elf_getphdrnum(obj->elf, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(obj->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (scan_notes(obj, elf_getdata_rawchunk(obj->elf, (int64_t)ph.p_offset,
							 ph.p_filesz, ELF_T_NHDR)))
			return;
	}
}

static bool is_defined_func(const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && s->st_shndx != SHN_UNDEF &&
	       s->st_shndx != SHN_ABS && s->st_shndx != SHN_COMMON;
}

static int append_symtab(struct elf_object *obj, Elf_Scn *scn, const GElf_Shdr *sh, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		name = elf_strptr(obj->elf, sh->sh_link, s.st_name);
		if (!name || !*name || type == STT_SECTION || type == STT_FILE)
			continue;
		if (obj->nsyms == *cap) {
			size_t ncap = *cap ? *cap * 2 : 256;
			struct sym_entry *p = realloc(obj->syms, ncap * sizeof(*p));

			if (!p)
				return -ENOMEM;
			obj->syms = p;
			*cap = ncap;
		}
		obj->syms[obj->nsyms++] = (struct sym_entry){
			.pub = { name, s.st_value, s.st_size, is_defined_func(&s) },
			.bind = GELF_ST_BIND(s.st_info),
		};
	}
	return 0;
}

static int cmp_addr_name(const void *a, const void *b)
{
	const struct sym_entry *x = a, *y = b;

	if (x->pub.addr != y->pub.addr)
		return x->pub.addr < y->pub.addr ? -1 : 1;
	return strcmp(x->pub.name, y->pub.name);
}

/* .symtab and .dynsym repeat each other's exported symbols; merge the
 * duplicates keeping the most informative copy. */
static void dedupe_symbols(struct elf_object *obj)
{
	size_t out = 0;

	if (!obj->nsyms)
		return;
	qsort(obj->syms, obj->nsyms, sizeof(*obj->syms), cmp_addr_name);
	for (size_t i = 1; i < obj->nsyms; i++) {
		struct sym_entry *keep = &obj->syms[out], *s = &obj->syms[i];

		if (cmp_addr_name(keep, s)) {
			obj->syms[++out] = *s;
			continue;
		}
		keep->pub.defined_func |= s->pub.defined_func;
		if (s->pub.size > keep->pub.size)
			keep->pub.size = s->pub.size;
		if (keep->bind == STB_LOCAL)
			keep->bind = s->bind;
	}
	obj->nsyms = out + 1;
}

static int cmp_ptr_name(const void *a, const void *b)
{
	const struct sym_entry *x = *(struct sym_entry *const *)a;
	const struct sym_entry *y = *(struct sym_entry *const *)b;
	int c = strcmp(x->pub.name, y->pub.name);

	if (c)
		return c;
	return x->pub.addr < y->pub.addr ? -1 : x->pub.addr > y->pub.addr;
}

static int index_functions(struct elf_object *obj)
{
	size_t n = 0;

	obj->by_addr = calloc(obj->nsyms ? obj->nsyms : 1, sizeof(*obj->by_addr));
	obj->by_name = calloc(obj->nsyms ? obj->nsyms : 1, sizeof(*obj->by_name));
	if (!obj->by_addr || !obj->by_name)
		return -ENOMEM;
	for (size_t i = 0; i < obj->nsyms; i++)
		if (obj->syms[i].pub.defined_func)
			obj->by_addr[n++] = &obj->syms[i];
	obj->nfuncs = n;
	memcpy(obj->by_name, obj->by_addr, n * sizeof(*obj->by_name));
	/* syms is already in (addr, name) order, so by_addr is too. */
	qsort(obj->by_name, n, sizeof(*obj->by_name), cmp_ptr_name);
	return 0;
}

static int read_symbols(struct elf_object *obj)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;
	int err;

	while ((scn = elf_nextscn(obj->elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		obj->has_symtab |= sh.sh_type == SHT_SYMTAB;
		err = append_symtab(obj, scn, &sh, &cap);
		if (err)
			return err;
	}
	dedupe_symbols(obj);
	return index_functions(obj);
}

static bool is_unwind_symbol(const char *name)
{
	static const char *const names[] = {
		"__gxx_personality_v0",
		"__gcc_personality_v0",
		"rust_eh_personality",
		"_Unwind_Resume",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static bool detect_unwind(const struct elf_object *obj)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf_getshdrstrndx(obj->elf, &shstrndx)) {
		while ((scn = elf_nextscn(obj->elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(obj->elf, shstrndx, sh.sh_name);
			if (name && !strcmp(name, ".gcc_except_table"))
				return true;
		}
	}
	for (size_t i = 0; i < obj->nsyms; i++)
		if (is_unwind_symbol(obj->syms[i].pub.name))
			return true;
	return false;
}

static int open_fd(const char *path, int *fd, char *err, size_t errlen)
{
	struct stat st;
	int e;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	if (fstat(*fd, &st))
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode))
		e = ENOEXEC;
	else
		return 0;
	snprintf(err, errlen, "%s: %s", path, e == ENOEXEC ? "not a regular file" : strerror(e));
	close(*fd);
	*fd = -1;
	return -e;
}

static int load_elf(struct elf_object *obj, char *err, size_t errlen)
{
	int ret;

	obj->elf = elf_begin(obj->fd, ELF_C_READ_MMAP, NULL);
	if (!obj->elf || elf_kind(obj->elf) != ELF_K_ELF || !gelf_getehdr(obj->elf, &obj->ehdr)) {
		snprintf(err, errlen, "%s is not an ELF file", obj->path);
		return -ENOEXEC;
	}
	ret = read_loads(obj);
	if (!ret)
		ret = read_symbols(obj);
	if (ret) {
		snprintf(err, errlen, "%s: cannot read ELF: %s", obj->path,
			 ret == -ENOMEM ? strerror(ENOMEM) : elf_errmsg(-1));
		return ret;
	}
	read_build_id(obj);
	obj->can_unwind = detect_unwind(obj);
	return 0;
}

int elf_object__open(const char *path, struct elf_object **out, char *err, size_t errlen)
{
	struct elf_object *obj;
	int ret;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf is unusable: %s", elf_errmsg(-1));
		return -ENOTSUP;
	}
	obj = calloc(1, sizeof(*obj));
	if (obj)
		obj->fd = -1;
	if (!obj || !(obj->path = strdup(path))) {
		free(obj);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = open_fd(path, &obj->fd, err, errlen);
	if (!ret)
		ret = load_elf(obj, err, errlen);
	if (ret) {
		elf_object__free(obj);
		return ret;
	}
	*out = obj;
	return 0;
}

void elf_object__free(struct elf_object *obj)
{
	if (!obj)
		return;
	free(obj->by_addr);
	free(obj->by_name);
	free(obj->syms);
	free(obj->loads);
	elf_object__free(obj->debug);
	if (obj->elf)
		elf_end(obj->elf);
	if (obj->fd >= 0)
		close(obj->fd);
	free(obj->path);
	free(obj);
}

bool elf_object__has_symtab(const struct elf_object *obj)
{
	return obj->has_symtab;
}

/* A debug file made by objcopy --only-keep-debug has the object's
 * addresses; its symbols join the object's (names stay in its memory). */
int elf_object__add_debug_symbols(struct elf_object *obj, const char *path, char *err,
				  size_t errlen)
{
	struct elf_object *dbg;
	struct sym_entry *syms;
	int ret = elf_object__open(path, &dbg, err, errlen);

	if (ret)
		return ret;
	if (*obj->build_id && *dbg->build_id && strcmp(obj->build_id, dbg->build_id)) {
		snprintf(err, errlen, "%s has build-id %s, not %s's %s", path, dbg->build_id,
			 obj->path, obj->build_id);
		elf_object__free(dbg);
		return -ESTALE;
	}
	syms = realloc(obj->syms, (obj->nsyms + dbg->nsyms + 1) * sizeof(*syms));
	if (!syms) {
		elf_object__free(dbg);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(syms + obj->nsyms, dbg->syms, dbg->nsyms * sizeof(*syms));
	obj->syms = syms;
	obj->nsyms += dbg->nsyms;
	elf_object__free(obj->debug);
	obj->debug = dbg;
	free(obj->by_addr);
	free(obj->by_name);
	obj->by_addr = obj->by_name = NULL;
	dedupe_symbols(obj);
	ret = index_functions(obj);
	if (ret)
		snprintf(err, errlen, "out of memory");
	return ret;
}

const char *elf_object__path(const struct elf_object *obj)
{
	return obj->path;
}

const struct elf_object *elf_object__debug_file(const struct elf_object *obj)
{
	return obj->debug;
}

void *elf_object__elf(const struct elf_object *obj)
{
	return obj->elf;
}

bool elf_object__is_pie_or_dso(const struct elf_object *obj)
{
	return obj->ehdr.e_type == ET_DYN;
}

const char *elf_object__build_id(const struct elf_object *obj)
{
	return obj->build_id;
}

/* The PT_LOAD whose file image holds [vaddr, vaddr + size); memsz beyond
 * filesz is .bss, which has no bytes in the file. */
static const GElf_Phdr *load_for(const struct elf_object *obj, uint64_t vaddr, uint64_t size,
				 bool exec_only)
{
	for (size_t i = 0; i < obj->nloads; i++) {
		const GElf_Phdr *ph = &obj->loads[i];

		if (exec_only && !(ph->p_flags & PF_X))
			continue;
		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_filesz &&
		    size <= ph->p_filesz - (vaddr - ph->p_vaddr))
			return ph;
	}
	return NULL;
}

int elf_object__vaddr_to_offset(const struct elf_object *obj, uint64_t vaddr, uint64_t *off)
{
	const GElf_Phdr *ph = load_for(obj, vaddr, 1, true);

	if (!ph)
		return -ENOENT;
	*off = vaddr - ph->p_vaddr + ph->p_offset;
	return 0;
}

int elf_object__read_vaddr(const struct elf_object *obj, uint64_t vaddr, void *buf, size_t size)
{
	const GElf_Phdr *ph = load_for(obj, vaddr, size ? size : 1, false);
	size_t filesize;
	const char *image = elf_rawfile(obj->elf, &filesize);
	uint64_t off;

	if (!ph || !image)
		return -ENOENT;
	off = vaddr - ph->p_vaddr + ph->p_offset;
	if (off > filesize || size > filesize - off)
		return -ENOENT;
	memcpy(buf, image + off, size);
	return 0;
}

bool elf_object__can_unwind(const struct elf_object *obj)
{
	return obj->can_unwind;
}

size_t elf_object__symbol_count(const struct elf_object *obj)
{
	return obj->nsyms;
}

const struct elf_symbol *elf_object__symbol(const struct elf_object *obj, size_t i)
{
	return i < obj->nsyms ? &obj->syms[i].pub : NULL;
}

const struct elf_symbol *elf_object__find_symbol(const struct elf_object *obj, const char *name)
{
	size_t lo = 0, hi = obj->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(obj->by_name[mid]->pub.name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < obj->nfuncs && !strcmp(obj->by_name[lo]->pub.name, name))
		return &obj->by_name[lo]->pub;
	return NULL;
}

/* Higher is better: a sized symbol that covers addr beats a size-0 label,
 * which beats a sized one that ends before addr; global beats weak beats
 * local (aliases and static copies). */
static int sym_score(const struct sym_entry *s, uint64_t addr)
{
	int score;

	if (!s->pub.size)
		score = 4;
	else if (addr - s->pub.addr < s->pub.size)
		score = 8;
	else
		score = 0;
	if (s->bind == STB_GLOBAL)
		score += 2;
	else if (s->bind == STB_WEAK)
		score += 1;
	return score;
}

const struct elf_symbol *elf_object__symbol_at(const struct elf_object *obj, uint64_t addr)
{
	size_t lo = 0, hi = obj->nfuncs, first;
	const struct sym_entry *best = NULL;
	int best_score = -1;

	/* lo = number of functions starting at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (obj->by_addr[mid]->pub.addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	first = lo - 1;
	while (first > 0 && obj->by_addr[first - 1]->pub.addr == obj->by_addr[lo - 1]->pub.addr)
		first--;
	for (size_t i = first; i < lo; i++) {
		int score = sym_score(obj->by_addr[i], addr);

		if (score > best_score) {
			best = obj->by_addr[i];
			best_score = score;
		}
	}
	/* A sized symbol that ends before addr does not contain it. */
	return best_score >= 4 ? &best->pub : NULL;
}
