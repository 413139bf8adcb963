// SPDX-License-Identifier: MIT
/* cmd_filter.c: `sledtrace filter OBJECT (-F REGEX | --list FILE)... -o FILE`
 * writes a filter file for `record`: regexes as given, or the exact names
 * of a list (anchored and escaped), stamped with the object's path and
 * build-id so a rebuilt object makes the filter visibly stale.  It checks
 * every pattern against the object's instrumented functions, since a typo
 * in a filter otherwise only shows up as a trace missing its functions. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "object/elf_object.h"
#include "probe/filter.h"
#include "object/symbols.h"
#include "object/xray_map.h"

#define MAX_WARNINGS 10

struct filter_args {
	const char *object;
	const char *output;
	const char **regexes; /* -F, in order */
	size_t nregexes;
	const char **lists; /* --list files, in order */
	size_t nlists;
};

/* The instrumented functions, both names of each, sorted for bsearch. */
struct known_names {
	const char **v;
	size_t n;
	size_t nfuncs;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace filter OBJECT (-F REGEX | --list FILE)... -o FILE\n"
		"\n"
		"Writes a filter file that 'sledtrace record --filter-file' reads.  Each\n"
		"pattern is a POSIX extended regex matched against the demangled and the\n"
		"mangled name of every instrumented function of OBJECT; a leading '!'\n"
		"makes it an exclude, and excludes win.  The file records OBJECT's\n"
		"build-id, so record can tell when the object was rebuilt.\n"
		"\n"
		"options:\n"
		"  -F, --function REGEX  add a regex (repeatable), e.g. 'resolve|cache'\n"
		"      --list FILE       add the exact names in FILE, one per line ('-' is\n"
		"                        stdin; '#' comments; '!name' excludes)\n"
		"  -o, --output FILE     the filter file to write (replaced atomically)\n"
		"  -h, --help            show this help\n");
}

static int push_arg(const char ***v, size_t *n, const char *arg)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		fprintf(stderr, "sledtrace: filter: out of memory\n");
		return -ENOMEM;
	}
	nv[(*n)++] = arg;
	*v = nv;
	return 0;
}

static int bad_usage(const char *what, const char *arg)
{
	fprintf(stderr, "sledtrace: filter: %s%s%s%s (try 'sledtrace filter --help')\n", what,
		arg ? " '" : "", arg ? arg : "", arg ? "'" : "");
	return 2;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct filter_args *a)
{
	static const struct option opts[] = {
		{ "function", required_argument, NULL, 'F' },
		{ "list", required_argument, NULL, 'l' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hF:o:", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'F' || c == 'l') {
			if ((c == 'F' ? push_arg(&a->regexes, &a->nregexes, optarg)
				      : push_arg(&a->lists, &a->nlists, optarg)))
				return 1;
		} else if (c == 'o') {
			a->output = optarg;
		} else if (c == ':') {
			return bad_usage("missing argument for", argv[optind - 1]);
		} else {
			return bad_usage("unknown option", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return bad_usage(argc == optind ? "missing OBJECT" : "expected exactly one OBJECT",
				 NULL);
	a->object = argv[optind];
	if (!a->output)
		return bad_usage("missing -o FILE", NULL);
	if (!a->nregexes && !a->nlists)
		return bad_usage("nothing to write: give -F REGEX or --list FILE", NULL);
	return -1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int known_names_load(struct known_names *k, const struct xray_map *map,
			    const struct symbols *syms)
{
	k->v = malloc(2 * map->nfuncs * sizeof(*k->v) + 1);
	if (!k->v)
		return -ENOMEM;
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct symbol_info *si = symbols__get(syms, map->funcs[i].id);

		if (!si)
			continue;
		k->v[k->n++] = si->name;
		if (*si->mangled && strcmp(si->mangled, si->name))
			k->v[k->n++] = si->mangled;
	}
	k->nfuncs = map->nfuncs;
	qsort(k->v, k->n, sizeof(*k->v), cmp_str);
	return 0;
}

static bool known(const struct known_names *k, const char *name)
{
	return bsearch(&name, k->v, k->n, sizeof(*k->v), cmp_str) != NULL;
}

static void warn_unknown(const char *what, const char *pattern, const char *object,
			 size_t *nwarnings)
{
	if ((*nwarnings)++ < MAX_WARNINGS)
		fprintf(stderr,
			"sledtrace: filter: warning: %s '%s' matches no instrumented "
			"function of %s\n",
			what, pattern, object);
}

static int add_regexes(struct filter *f, const struct filter_args *a, const struct known_names *k,
		       size_t *nwarnings)
{
	char err[1024];

	for (size_t i = 0; i < a->nregexes; i++) {
		const char *re = a->regexes[i];
		bool exclude = re[0] == '!';
		struct filter *one = filter__new();
		bool hit = false;
		int ret;

		if (!one)
			return -ENOMEM;
		ret = filter__add(one, re + exclude, false, err, sizeof(err));
		for (size_t j = 0; !ret && !hit && j < k->n; j++)
			hit = filter__match(one, k->v[j], NULL);
		filter__free(one);
		if (!ret)
			ret = filter__add(f, re + exclude, exclude, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "sledtrace: filter: -F: %s\n", err);
			return ret;
		}
		if (!hit)
			warn_unknown("regex", re, a->object, nwarnings);
	}
	return 0;
}

static int add_list_line(struct filter *f, char *line, const struct known_names *k,
			 const char *object, size_t *nwarnings, char *err, size_t errlen)
{
	bool exclude;
	size_t n;

	/* Blanks at either end are not part of a name (as in filter files). */
	line[strcspn(line, "\r\n")] = '\0';
	line += strspn(line, " \t");
	for (n = strlen(line); n && (line[n - 1] == ' ' || line[n - 1] == '\t'); n--)
		line[n - 1] = '\0';
	if (!*line || *line == '#')
		return 0;
	exclude = *line == '!';
	line += exclude;
	if (!known(k, line))
		warn_unknown("name", line, object, nwarnings);
	return filter__add_exact(f, line, exclude, err, errlen);
}

static int add_list(struct filter *f, const char *path, const struct known_names *k,
		    const char *object, size_t *nwarnings)
{
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, err[1024];
	size_t cap = 0, lineno = 0;
	int ret = 0;

	if (!fp) {
		ret = -errno;
		fprintf(stderr, "sledtrace: filter: cannot open list '%s': %s\n", path,
			strerror(-ret));
		return ret;
	}
	while (!ret && getline(&line, &cap, fp) >= 0) {
		lineno++;
		ret = add_list_line(f, line, k, object, nwarnings, err, sizeof(err));
		if (ret)
			fprintf(stderr, "sledtrace: filter: %s:%zu: %s\n", path, lineno, err);
	}
	free(line);
	if (fp != stdin)
		fclose(fp);
	return ret;
}

static size_t count_selected(const struct filter *f, const struct xray_map *map,
			     const struct symbols *syms)
{
	size_t n = 0;

	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct symbol_info *si = symbols__get(syms, map->funcs[i].id);

		n += si && filter__match(f, si->name, si->mangled);
	}
	return n;
}

static int build_and_write(const struct filter_args *a, struct elf_object *obj,
			   const struct xray_map *map, const struct symbols *syms)
{
	struct known_names k = { 0 };
	struct filter *f = filter__new();
	char abs[PATH_MAX], err[1024];
	size_t nwarnings = 0;
	int ret = f ? known_names_load(&k, map, syms) : -ENOMEM;

	if (!ret)
		ret = add_regexes(f, a, &k, &nwarnings);
	for (size_t i = 0; !ret && i < a->nlists; i++)
		ret = add_list(f, a->lists[i], &k, a->object, &nwarnings);
	if (ret == -ENOMEM)
		fprintf(stderr, "sledtrace: filter: out of memory\n");
	if (nwarnings > MAX_WARNINGS)
		fprintf(stderr, "sledtrace: filter: warning: %zu more patterns match nothing\n",
			nwarnings - MAX_WARNINGS);
	if (!ret) {
		ret = filter__write_file(f, a->output, realpath(a->object, abs) ? abs : a->object,
					 elf_object__build_id(obj), err, sizeof(err));
		if (ret)
			fprintf(stderr, "sledtrace: filter: %s\n", err);
	}
	if (!ret)
		printf("wrote %s: %zu patterns, %zu of %zu instrumented functions selected\n",
		       a->output, filter__count(f), count_selected(f, map, syms), map->nfuncs);
	free(k.v);
	filter__free(f);
	return ret;
}

int cmd_filter(int argc, char **argv)
{
	struct filter_args a = { 0 };
	struct symbols_opts sopts = { .no_srcloc = true };
	struct elf_object *obj = NULL;
	struct xray_map *map = NULL;
	struct symbols *syms = NULL;
	char err[512];
	int ret = parse_args(argc, argv, &a);

	if (ret < 0) {
		ret = elf_object__open(a.object, &obj, err, sizeof(err));
		if (!ret)
			ret = xray_map__load(obj, &map, err, sizeof(err));
		if (!ret)
			ret = symbols__load(obj, map, &sopts, &syms, err, sizeof(err));
		if (ret)
			fprintf(stderr, "sledtrace: %s\n", err);
		else
			ret = build_and_write(&a, obj, map, syms);
		ret = ret ? 1 : 0;
	}
	symbols__free(syms);
	xray_map__free(map);
	elf_object__free(obj);
	free(a.regexes);
	free(a.lists);
	return ret;
}
