/* cmd_list.c: `sledtrace list OBJECT`, the instrumented functions of one
 * object with their sled counts.  It is the quickest way to check that a
 * build has sleds and what `record` would attach to. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "elf_object.h"
#include "symbols.h"
#include "xray_map.h"

struct list_args {
	const char *path;
	bool mangled;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace list OBJECT [--mangled]\n"
		"\n"
		"Lists the XRay-instrumented functions of OBJECT (an executable or shared\n"
		"library): XRay function id, address, sleds (entry/exit/tail), name.\n"
		"\n"
		"options:\n"
		"  --mangled   show raw symbol names instead of demangled ones\n"
		"  -h, --help  show this help\n");
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct list_args *a)
{
	static const struct option opts[] = {
		{ "mangled", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == 'm') {
			a->mangled = true;
			continue;
		}
		if (optopt)
			fprintf(stderr, "sledtrace: list: unknown option '-%c' (try 'sledtrace list --help')\n",
				optopt);
		else
			fprintf(stderr, "sledtrace: list: unknown option '%s' (try 'sledtrace list --help')\n",
				argv[optind - 1]);
		return 2;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "sledtrace: list: %s (try 'sledtrace list --help')\n",
			argc == optind ? "missing OBJECT" : "expected exactly one OBJECT");
		return 2;
	}
	a->path = argv[optind];
	return -1;
}

static void print_table(const struct xray_map *map, const struct symbols *syms)
{
	size_t entry = 0, exit = 0, tail = 0;

	printf("%6s  %-18s  %-11s  %s\n", "ID", "ADDRESS", "SLEDS E/X/T", "NAME");
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct xray_function *f = &map->funcs[i];
		const struct symbol_info *si = symbols__get(syms, f->id);
		char counts[40];

		snprintf(counts, sizeof(counts), "%" PRIu32 "/%" PRIu32 "/%" PRIu32,
			 f->nentry, f->nexit, f->ntail);
		printf("%6" PRIu32 "  0x%-16" PRIx64 "  %-11s  %s\n", f->id, f->addr, counts,
		       si ? si->name : "?");
		entry += f->nentry;
		exit += f->nexit;
		tail += f->ntail;
	}
	printf("%zu functions, %zu sleds (%zu entry, %zu exit, %zu tail, %zu ignored)\n",
	       map->nfuncs, map->nsleds + map->ignored_sleds, entry, exit, tail,
	       map->ignored_sleds);
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	struct symbols_opts sopts = { .no_srcloc = true };
	struct elf_object *obj = NULL;
	struct xray_map *map = NULL;
	struct symbols *syms = NULL;
	char err[512];
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		return ret;
	sopts.mangled = a.mangled;
	ret = elf_object__open(a.path, &obj, err, sizeof(err));
	if (!ret)
		ret = xray_map__load(obj, &map, err, sizeof(err));
	if (!ret)
		ret = symbols__load(obj, map, &sopts, &syms, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	else
		print_table(map, syms);
	symbols__free(syms);
	xray_map__free(map);
	elf_object__free(obj);
	return ret ? 1 : 0;
}
