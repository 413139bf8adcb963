// SPDX-License-Identifier: MIT
/* srcloc.c: source file and line of function addresses from DWARF (libdw).
 *
 * The DWARF comes from the object itself, or else from separate debug info
 * found the way gdb finds it: /usr/lib/debug/.build-id/xx/yyyy.debug, then
 * the .gnu_debuglink name next to the object, in its .debug/ subdirectory
 * and under /usr/lib/debug/<object's dir>/.  A function's location is its
 * declaration (DW_AT_decl_file/line, through abstract_origin and
 * specification), else the line-table row at its address.  Nothing is read
 * before the first lookup, and then only the unit headers and the functions
 * of the units that hold the addresses asked about: a trace asks about the
 * functions it hit, and walking all of a large program's DWARF costs tens of
 * milliseconds.
 *
 * File names come out whole (srcpath.h): libdw joins a file to its line
 * table's include directory (DWARF 4 and 5 alike), but a directory that is
 * itself relative to DW_AT_comp_dir is left so, e.g. for a file that
 * another one #includes from a subdirectory when the compiler was given a
 * relative path.  Each name is joined and normalized once, on its first
 * lookup, and kept for as long as the srcloc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <zlib.h>

#include "object/srcloc.h"
#include "object/srcpath.h"
#include "util/u64map.h"

#define DEBUG_ROOT "/usr/lib/debug"

/* One address range of one function.  file is NULL when the DIE has no
 * declaration; the line table answers then. */
struct sl_func {
	uint64_t lo, hi;
	const char *file; /* owned by dbg, as libdw spells it */
	const char *dir;  /* its unit's DW_AT_comp_dir, or NULL */
	uint32_t line;
};

/* A file name as libdw spells it, and the whole path it names. */
struct sl_path {
	const char *raw, *dir;
	char *path;
};

/* One compile unit.  Its functions are read on the first lookup that falls
 * in its address ranges: a trace asks about the few functions it hit, so
 * most units are never read.  Invariant: once indexed, funcs is sorted by
 * lo and, among equal lo, the entries with a file come first. */
struct sl_unit {
	Dwarf_Die die; /* the unit holding the functions (split unit if any) */
	bool indexed;
	bool oom; /* the index holds what fit */
	struct sl_func *funcs;
	size_t n, cap;
};

/* An address range of a unit; a unit without ranges gets [0, max). */
struct sl_range {
	uint64_t lo, hi;
	size_t unit;
};

struct srcloc {
	Dwarf *dbg;   /* NULL when no DWARF was found */
	int debug_fd; /* separate debug file, or -1 */
	Elf *debug_elf;
	bool scanned; /* units and ranges read */
	struct sl_unit *units;
	size_t nunits;
	struct sl_range *ranges;
	size_t nranges, rcap;
	struct sl_path *paths; /* every whole path handed out */
	size_t npaths, pcap;
	struct u64map path_of; /* raw name's address -> index in paths */
};

static bool has_units(Dwarf *dbg)
{
	Dwarf_CU *next = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;
	Dwarf_Half version;

	return dwarf_get_units(dbg, NULL, &next, &version, &unit_type, &cudie, NULL) == 0;
}

static void hex(const uint8_t *bytes, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", bytes[i]);
	out[2 * n] = '\0';
}

/* Hex build-id of elf into out (at least 2 * 64 + 1 bytes), "" if none. */
static void elf_build_id(Elf *elf, char *out)
{
	const void *id;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &id);

	out[0] = '\0';
	if (n > 0 && n <= 64)
		hex(id, (size_t)n, out);
}

static bool crc_matches(int fd, uint32_t want)
{
	const size_t size = 1 << 16;
	unsigned char *buf = malloc(size);
	uLong crc = crc32(0L, Z_NULL, 0);
	ssize_t n = -1;

	if (buf && lseek(fd, 0, SEEK_SET) == 0)
		while ((n = read(fd, buf, size)) > 0)
			crc = crc32(crc, buf, (uInt)n);
	free(buf);
	return n == 0 && crc == want;
}

/* A candidate debug file belongs to the object when the build-ids agree,
 * or (with no build-id to compare) when its CRC is the debuglink's. */
static bool debug_file_matches(int fd, Elf *elf, const char *want_id, const uint32_t *want_crc)
{
	char id[129];

	elf_build_id(elf, id);
	if (*want_id && *id)
		return !strcmp(id, want_id);
	return want_crc && crc_matches(fd, *want_crc);
}

static bool try_debug_file(struct srcloc *sl, const char *path, const char *want_id,
			   const uint32_t *want_crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = NULL;
	Dwarf *dbg = NULL;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && debug_file_matches(fd, elf, want_id, want_crc))
		dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (dbg && has_units(dbg)) {
		sl->dbg = dbg;
		sl->debug_elf = elf;
		sl->debug_fd = fd;
		return true;
	}
	if (dbg)
		dwarf_end(dbg);
	elf_end(elf);
	close(fd);
	return false;
}

static bool try_build_id(struct srcloc *sl, const char *id)
{
	char path[PATH_MAX];

	if (strlen(id) < 4)
		return false;
	snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%.2s/%s.debug", id, id + 2);
	return try_debug_file(sl, path, id, NULL);
}

static bool try_debuglink(struct srcloc *sl, const struct elf_object *obj, const char *id)
{
	GElf_Word crc;
	const char *name = dwelf_elf_gnu_debuglink(elf_object__elf(obj), &crc);
	char dir[PATH_MAX], path[PATH_MAX];
	const char *formats[] = { "%s/%s", "%s/.debug/%s", DEBUG_ROOT "%s/%s" };
	char *slash;

	if (!name || !realpath(elf_object__path(obj), dir))
		return false;
	slash = strrchr(dir, '/');
	*slash = '\0'; /* realpath is absolute: dir "" means "/" */
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		snprintf(path, sizeof(path), formats[i], dir, name);
		if (try_debug_file(sl, path, id, &crc))
			return true;
	}
	return false;
}

struct srcloc *srcloc__open(const struct elf_object *obj)
{
	struct srcloc *sl = calloc(1, sizeof(*sl));
	Elf *elf = elf_object__elf(obj);
	const char *id = elf_object__build_id(obj);

	if (!sl)
		return NULL;
	sl->debug_fd = -1;
	if (elf && (sl->dbg = dwarf_begin_elf(elf, DWARF_C_READ, NULL))) {
		if (has_units(sl->dbg))
			return sl;
		dwarf_end(sl->dbg);
		sl->dbg = NULL;
	}
	if (!try_build_id(sl, id))
		try_debuglink(sl, obj, id);
	return sl;
}

void srcloc__free(struct srcloc *sl)
{
	if (!sl)
		return;
	for (size_t i = 0; i < sl->nunits; i++)
		free(sl->units[i].funcs);
	free(sl->units);
	free(sl->ranges);
	for (size_t i = 0; i < sl->npaths; i++)
		free(sl->paths[i].path);
	free(sl->paths);
	u64map__clear(&sl->path_of);
	if (sl->dbg)
		dwarf_end(sl->dbg);
	if (sl->debug_elf)
		elf_end(sl->debug_elf);
	if (sl->debug_fd >= 0)
		close(sl->debug_fd);
	free(sl);
}

static int push_func(struct sl_unit *u, const struct sl_func *fn)
{
	if (u->n == u->cap) {
		size_t cap = u->cap ? u->cap * 2 : 64;
		struct sl_func *v = realloc(u->funcs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		u->funcs = v;
		u->cap = cap;
	}
	u->funcs[u->n++] = *fn;
	return 0;
}

/* The directory the unit's relative names start from.  On a split unit
 * dwarf_attr_integrate reads the skeleton's. */
static const char *comp_dir(Dwarf_Die *cudie)
{
	Dwarf_Attribute attr;

	return dwarf_formstring(dwarf_attr_integrate(cudie, DW_AT_comp_dir, &attr));
}

/* dwarf_decl_file in elfutils before 0.191 refuses file index 0, which
 * DWARF 5 uses for the primary source file (clang's default), so read the
 * index and the file table of the unit the attribute lives in (which may
 * not be the function's: abstract origins cross units under LTO); *dir is
 * that unit's DW_AT_comp_dir. */
static const char *decl_file(Dwarf_Die *die, const char **dir)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Die cudie;
	Dwarf_Half version;
	Dwarf_Files *files;
	size_t nfiles;

	if (!dwarf_attr_integrate(die, DW_AT_decl_file, &attr) || dwarf_formudata(&attr, &idx) ||
	    !dwarf_cu_die(attr.cu, &cudie, &version, NULL, NULL, NULL, NULL, NULL) ||
	    (idx == 0 && version < 5) || dwarf_getsrcfiles(&cudie, &files, &nfiles) ||
	    idx >= nfiles)
		return NULL;
	*dir = comp_dir(&cudie);
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* dwarf_getfuncs callback: one entry per address range of a definition. */
static int add_func(Dwarf_Die *die, void *arg)
{
	struct sl_unit *u = arg;
	struct sl_func fn = { 0 };
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int line = 0;

	fn.file = decl_file(die, &fn.dir);
	if (fn.file && dwarf_decl_line(die, &line) == 0 && line > 0)
		fn.line = (uint32_t)line;
	else
		fn.file = NULL;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		fn.lo = lo;
		fn.hi = hi;
		if (lo < hi && push_func(u, &fn)) {
			u->oom = true;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

static int cmp_func(const void *a, const void *b)
{
	const struct sl_func *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->file == NULL) - (y->file == NULL);
}

static bool is_c(Dwarf_Die *cu)
{
	switch (dwarf_srclang(cu)) {
	case DW_LANG_C89:
	case DW_LANG_C:
	case DW_LANG_C99:
	case DW_LANG_C11:
		return true;
	default:
		return false;
	}
}

/* A C unit from clang defines functions only as children of the unit (no
 * nested functions): reading those skips the function bodies that
 * dwarf_getfuncs walks into, which is most of the unit. */
static void index_c_unit(struct sl_unit *u)
{
	Dwarf_Die die;
	int r = dwarf_child(&u->die, &die);

	while (r == 0) {
		if (dwarf_tag(&die) == DW_TAG_subprogram && add_func(&die, u) != DWARF_CB_OK)
			break;
		r = dwarf_siblingof(&die, &die);
	}
}

static void index_unit(struct sl_unit *u)
{
	u->indexed = true;
	if (is_c(&u->die))
		index_c_unit(u);
	else
		dwarf_getfuncs(&u->die, add_func, u, 0);
	if (u->n)
		qsort(u->funcs, u->n, sizeof(*u->funcs), cmp_func);
}

static int push_range(struct srcloc *sl, uint64_t lo, uint64_t hi, size_t unit)
{
	if (sl->nranges == sl->rcap) {
		size_t cap = sl->rcap ? sl->rcap * 2 : 256;
		struct sl_range *v = realloc(sl->ranges, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sl->ranges = v;
		sl->rcap = cap;
	}
	sl->ranges[sl->nranges++] = (struct sl_range){ lo, hi, unit };
	return 0;
}

/* Reads only the unit headers and their address ranges: cheap next to
 * reading every function DIE. */
static int scan_unit(struct srcloc *sl, Dwarf_Die *cudie, Dwarf_Die *die)
{
	size_t idx = sl->nunits;
	struct sl_unit *v = realloc(sl->units, (idx + 1) * sizeof(*v));
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t before = sl->nranges;
	int err = 0;

	if (!v)
		return -ENOMEM;
	sl->units = v;
	v[idx] = (struct sl_unit){ .die = *die };
	sl->nunits++;
	while (!err && (off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0)
		if (lo < hi)
			err = push_range(sl, lo, hi, idx);
	if (!err && sl->nranges == before)
		err = push_range(sl, 0, UINT64_MAX, idx);
	return err;
}

static void scan_units(struct srcloc *sl)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	uint8_t unit_type;
	Dwarf_Half version;

	sl->scanned = true;
	while (dwarf_get_units(sl->dbg, cu, &cu, &version, &unit_type, &cudie, &subdie) == 0) {
		Dwarf_Die *die = &cudie;

		/* A skeleton's functions live in its split unit (.dwo). */
		if (unit_type == DW_UT_skeleton && dwarf_tag(&subdie) == DW_TAG_compile_unit)
			die = &subdie;
		if (scan_unit(sl, &cudie, die))
			break; /* what fit is searched; the line table answers the rest */
	}
}

/* The first entry of the last group whose lo <= vaddr, if it holds vaddr. */
static const struct sl_func *find_func(const struct sl_unit *u, uint64_t vaddr)
{
	size_t lo = 0, hi = u->n;
	uint64_t start;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u->funcs[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	start = u->funcs[lo - 1].lo;
	while (lo > 1 && u->funcs[lo - 2].lo == start)
		lo--;
	return vaddr < u->funcs[lo - 1].hi ? &u->funcs[lo - 1] : NULL;
}

/* Across the units whose ranges hold vaddr, the function starting last at
 * or before it (one with a declaration first): what one index of all
 * units would answer. */
static const struct sl_func *find_in_units(struct srcloc *sl, uint64_t vaddr)
{
	const struct sl_func *best = NULL;

	for (size_t i = 0; i < sl->nranges; i++) {
		struct sl_unit *u = &sl->units[sl->ranges[i].unit];
		const struct sl_func *fn;

		if (vaddr < sl->ranges[i].lo || vaddr >= sl->ranges[i].hi)
			continue;
		if (!u->indexed)
			index_unit(u);
		fn = find_func(u, vaddr);
		if (fn && (!best || fn->lo > best->lo || (fn->lo == best->lo && !best->file)))
			best = fn;
	}
	return best;
}

/* raw (as libdw spells it) as a whole path, made on its first use.  libdw
 * hands out one string per file of a line table, so its address keys the
 * cache; the directory is compared too, for a line table two units with
 * different DW_AT_comp_dir would share. */
static int whole_path(struct srcloc *sl, const char *raw, const char *dir, const char **out)
{
	uint64_t idx;
	struct sl_path *p;

	if (u64map__get(&sl->path_of, (uintptr_t)raw, &idx) && sl->paths[idx].dir == dir) {
		*out = sl->paths[idx].path;
		return 0;
	}
	if (sl->npaths == sl->pcap) {
		size_t cap = sl->pcap ? sl->pcap * 2 : 32;
		struct sl_path *v = realloc(sl->paths, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sl->paths = v;
		sl->pcap = cap;
	}
	p = &sl->paths[sl->npaths];
	*p = (struct sl_path){ raw, dir, srcpath__join(dir, raw) };
	if (!p->path || u64map__put(&sl->path_of, (uintptr_t)raw, sl->npaths)) {
		free(p->path);
		return -ENOMEM;
	}
	sl->npaths++;
	*out = p->path;
	return 0;
}

static int line_table_lookup(struct srcloc *sl, uint64_t vaddr, const char **file, uint32_t *line)
{
	Dwarf_Die cudie;
	Dwarf_Line *row;
	const char *src;
	int lineno, err;

	if (!dwarf_addrdie(sl->dbg, vaddr, &cudie))
		return -ENOENT;
	row = dwarf_getsrc_die(&cudie, vaddr);
	if (!row || !(src = dwarf_linesrc(row, NULL, NULL)) || dwarf_lineno(row, &lineno) ||
	    lineno <= 0)
		return -ENOENT;
	if ((err = whole_path(sl, src, comp_dir(&cudie), file)))
		return err;
	*line = (uint32_t)lineno;
	return 0;
}

int srcloc__lookup(struct srcloc *sl, uint64_t vaddr, const char **file, uint32_t *line)
{
	const struct sl_func *fn;
	int err;

	if (!sl || !sl->dbg)
		return -ENOENT;
	if (!sl->scanned)
		scan_units(sl);
	fn = find_in_units(sl, vaddr);
	if (fn && fn->file) {
		if ((err = whole_path(sl, fn->file, fn->dir, file)))
			return err;
		*line = fn->line;
		return 0;
	}
	return line_table_lookup(sl, vaddr, file, line);
}
