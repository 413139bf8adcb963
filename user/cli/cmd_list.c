// SPDX-License-Identifier: MIT
/* cmd_list.c: `sledtrace list OBJECT`, the instrumented functions of one
 * object with their sled counts and source locations, and how many a filter
 * selects.  It is the quickest way to check that a build has sleds and what
 * `record` would attach to with the same -F/-N/--filter-file options. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "object/elf_object.h"
#include "probe/probe_plan.h"
#include "probe/select.h"
#include "object/symbol_map.h"
#include "object/symbols.h"
#include "object/xray_map.h"

struct list_args {
	const char *path;
	bool mangled, no_xray, exits;
	struct select_args sel;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace list OBJECT [-F REGEX]... [-N REGEX]... [--filter-file F] [--mangled]\n"
		"\n"
		"Lists the XRay-instrumented functions of OBJECT (an executable or shared\n"
		"library): XRay function id, address, sleds (entry/exit/tail), name and\n"
		"source location, then how many functions the filter selects.\n"
		"\n"
		"options:\n"
		"  -F, --filter REGEX    only functions matching REGEX (POSIX ERE; repeatable)\n"
		"  -N, --exclude REGEX   not functions matching REGEX (wins over -F)\n"
		"      --filter-file F   patterns from a filter file\n"
		"      --no-xray         list function symbols (what record --no-xray probes)\n"
		"      --mangled         show raw symbol names instead of demangled ones\n"
		"      --exits           add how record --exit=auto sees each function's\n"
		"                        returns: 'ret' (uretprobe), 'sled' (exit sleds) or\n"
		"                        'infer' (no exit probe; with --no-xray)\n"
		"  -h, --help            show this help\n");
}

enum { OPT_MANGLED = 256, OPT_FILTER_FILE, OPT_NO_XRAY, OPT_EXITS };

static int parse_one(struct list_args *a, int c, char **argv)
{
	switch (c) {
	case OPT_MANGLED:
		a->mangled = true;
		return 0;
	case OPT_NO_XRAY:
		a->no_xray = true;
		return 0;
	case OPT_EXITS:
		a->exits = true;
		return 0;
	case 'F':
	case 'N':
	case OPT_FILTER_FILE:
		if (!select_args__add(&a->sel, c == OPT_FILTER_FILE ? 'f' : (char)c, optarg))
			return 0;
		fprintf(stderr, "sledtrace: list: too many filter options\n");
		return 2;
	case ':':
		fprintf(stderr, "sledtrace: list: option '%s' needs a value\n", argv[optind - 1]);
		return 2;
	default:
		fprintf(stderr,
			"sledtrace: list: unknown option '%s' (try 'sledtrace list --help')\n",
			argv[optind - 1]);
		return 2;
	}
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct list_args *a)
{
	static const struct option opts[] = {
		{ "mangled", no_argument, NULL, OPT_MANGLED },
		{ "no-xray", no_argument, NULL, OPT_NO_XRAY },
		{ "exits", no_argument, NULL, OPT_EXITS },
		{ "filter", required_argument, NULL, 'F' },
		{ "exclude", required_argument, NULL, 'N' },
		{ "filter-file", required_argument, NULL, OPT_FILTER_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, ret;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hF:N:", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		ret = parse_one(a, c, argv);
		if (ret)
			return ret;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sledtrace: list: %s (try 'sledtrace list --help')\n",
			argc == optind ? "missing OBJECT" : "expected exactly one OBJECT");
		return 2;
	}
	a->path = argv[optind];
	return -1;
}

static void print_row(const struct xray_function *f, const struct symbol_info *si,
		      const char *exits)
{
	char counts[40], loc[512] = "";

	snprintf(counts, sizeof(counts), "%" PRIu32 "/%" PRIu32 "/%" PRIu32, f->nentry, f->nexit,
		 f->ntail);
	if (si->file)
		snprintf(loc, sizeof(loc), "  %s:%" PRIu32, si->file, si->line);
	printf("%6" PRIu32 "  0x%-16" PRIx64 "  %-11s  %s%s%s\n", f->id, f->addr, counts, exits,
	       si->name, loc);
}

static void print_table(const struct list_args *a, const struct elf_object *obj,
			const struct xray_map *map, const struct symbols *syms,
			const bool *selected, size_t nselected)
{
	size_t entry = 0, exit = 0, tail = 0;
	bool filtered = a->sel.n > 0;
	enum exit_mode object_exits = probe_plan__object_exits(obj, map, EXIT_AUTO);

	printf("%6s  %-18s  %-11s  %s%s\n", "ID", "ADDRESS", "SLEDS E/X/T",
	       a->exits ? "EXIT  " : "", "NAME  LOCATION");
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct xray_function *f = &map->funcs[i];
		char exits[16] = "";

		if (!selected[f->id])
			continue;
		if (a->exits) {
			enum exit_mode m = probe_plan__function_exits(obj, map, f, EXIT_AUTO,
								      object_exits);

			snprintf(exits, sizeof(exits), "%-6s",
				 m == EXIT_URETPROBE ? "ret" : probe_plan__exit_name(m));
		}
		print_row(f, symbols__get(syms, f->id), exits);
		entry += f->nentry;
		exit += f->nexit;
		tail += f->ntail;
	}
	if (filtered)
		printf("%zu of %zu functions selected, %zu sleds (%zu entry, %zu exit, %zu tail)\n",
		       nselected, map->nfuncs, entry + exit + tail, entry, exit, tail);
	else
		printf("%zu functions, %zu sleds (%zu entry, %zu exit, %zu tail, %zu ignored)\n",
		       map->nfuncs, map->nsleds + map->ignored_sleds, entry, exit, tail,
		       map->ignored_sleds);
}

static int load(struct list_args *a, struct elf_object *obj, struct xray_map **map,
		struct symbols **syms, bool **selected, size_t *nselected, char *err, size_t len)
{
	struct symbols_opts sopts = { .mangled = a->mangled };
	struct filter *f = NULL;
	int ret;

	ret = a->no_xray ? symbol_map__build(obj, map, err, len)
			 : xray_map__load(obj, map, err, len);
	if (!ret)
		ret = symbols__load(obj, *map, &sopts, syms, err, len);
	if (!ret && a->sel.n)
		ret = select_args__filter(&a->sel, elf_object__build_id(obj), &f, err, len);
	if (!ret)
		ret = select_functions(f, *syms, *map, selected, nselected);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	filter__free(f);
	return ret;
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct elf_object *obj = NULL;
	struct xray_map *map = NULL;
	struct symbols *syms = NULL;
	bool *selected = NULL;
	size_t nselected = 0;
	char err[8192];
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		return ret;
	ret = elf_object__open(a.path, &obj, err, sizeof(err));
	if (!ret)
		ret = load(&a, obj, &map, &syms, &selected, &nselected, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	else
		print_table(&a, obj, map, syms, selected, nselected);
	free(selected);
	symbols__free(syms);
	xray_map__free(map);
	elf_object__free(obj);
	return ret ? 1 : 0;
}
