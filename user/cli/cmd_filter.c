// SPDX-License-Identifier: MIT
/* cmd_filter.c: `sledtrace filter OBJECT (-F REGEX | -N REGEX | --list FILE)...
 * -o FILE` writes a filter file for `record`: regexes as given, or the exact names
 * of a list (anchored and escaped), stamped with the object's path and
 * build-id so a rebuilt object makes the filter visibly stale.  It checks
 * every pattern against the object's instrumented functions, since a typo
 * in a filter otherwise only shows up as a trace missing its functions. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "object/instrumented.h"
#include "select/filter.h"
#include "select/select.h"
#include "util/output_file.h"

#define MAX_WARNINGS 10

struct filter_args {
	const char *object;
	const char *output;
	struct select_args sel; /* -F, -N, --filter-file, in order */
	struct cli_list lists;	/* --list files, in order */
};

/* The instrumented functions, both names of each, sorted for bsearch. */
struct known_names {
	const char **v;
	size_t n;
	size_t nfuncs;
};

#define S struct filter_args

static const struct cli_option options[] = {
	CLI_SELECT('F', "filter", S, sel, 'F', "REGEX",
		   "select functions whose name matches REGEX (POSIX ERE), e.g. 'resolve|cache'"),
	CLI_SELECT('N', "exclude", S, sel, 'N', "REGEX",
		   "exclude functions matching REGEX (wins over --filter)"),
	CLI_SELECT(0, "filter-file", S, sel, 'f', "FILE", "the patterns of another filter file"),
	CLI_LIST(0, "list", S, lists, "FILE",
		 "the exact names in FILE, one per line ('-' is standard input; '#' starts a "
		 "comment; '!name' excludes)"),
	CLI_STRING('o', "output", S, output, "FILE", "none, required",
		   "the filter file to write (complete or not at all; '-' is standard output)"),
	CLI_END,
};

static int check(void *set, char *err, size_t errlen)
{
	S *a = set;

	if (!a->output)
		snprintf(err, errlen, "missing -o FILE");
	else if (!a->sel.n && !a->lists.n)
		snprintf(err, errlen, "nothing to write: give -F, -N, --filter-file or --list");
	else
		return cli_check_regexes(&a->sel, err, errlen);
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

static int add_regex(struct filter *f, const char *re, bool exclude, const struct known_names *k,
		     const char *object, size_t *nwarnings)
{
	struct filter *one = filter__new();
	bool hit = false;
	char err[1024];
	int ret;

	if (!one)
		return -ENOMEM;
	ret = filter__add(one, re, false, err, sizeof(err));
	for (size_t j = 0; !ret && !hit && j < k->n; j++)
		hit = filter__match(one, k->v[j], NULL);
	filter__free(one);
	if (!ret)
		ret = filter__add(f, re, exclude, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "sledtrace: filter: %s: %s\n", exclude ? "-N" : "-F", err);
		return ret;
	}
	if (!hit)
		warn_unknown("regex", re, object, nwarnings);
	return 0;
}

/* -F, -N and --filter-file, in the order given. */
static int add_selection(struct filter *f, const struct filter_args *a, const char *build_id,
			 const struct known_names *k, size_t *nwarnings)
{
	char err[1024];
	int ret = 0;

	for (size_t i = 0; i < a->sel.n && !ret; i++) {
		const char *arg = a->sel.items[i].arg;

		if (a->sel.items[i].kind != 'f') {
			ret = add_regex(f, arg, a->sel.items[i].kind == 'N', k, a->object,
					nwarnings);
			continue;
		}
		ret = filter__load_file(f, arg, a->object, build_id, err, sizeof(err));
		if (ret == -ESTALE)
			fprintf(stderr, "sledtrace: warning: %s\n", err);
		else if (ret)
			fprintf(stderr, "sledtrace: filter: %s\n", err);
		ret = ret == -ESTALE ? 0 : ret;
	}
	return ret;
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

struct write_job {
	const struct filter *f;
	const char *object_path, *build_id;
};

static int write_job(FILE *fp, void *ctx)
{
	const struct write_job *job = ctx;

	return filter__write(job->f, fp, job->object_path, job->build_id);
}

static int build_and_write(const struct filter_args *a, struct output_file *out,
			   struct elf_object *obj, const struct xray_map *map,
			   const struct symbols *syms)
{
	struct known_names k = { 0 };
	struct filter *f = filter__new();
	char abs[PATH_MAX], err[1024];
	struct write_job job = { f, realpath(a->object, abs) ? abs : a->object,
				 elf_object__build_id(obj) };
	size_t nwarnings = 0;
	int ret = f ? known_names_load(&k, map, syms) : -ENOMEM;

	if (!ret)
		ret = add_selection(f, a, job.build_id, &k, &nwarnings);
	for (size_t i = 0; !ret && i < a->lists.n; i++)
		ret = add_list(f, a->lists.v[i], &k, a->object, &nwarnings);
	if (ret == -ENOMEM)
		fprintf(stderr, "sledtrace: filter: out of memory\n");
	if (nwarnings > MAX_WARNINGS)
		fprintf(stderr, "sledtrace: filter: warning: %zu more patterns match nothing\n",
			nwarnings - MAX_WARNINGS);
	if (!ret) {
		ret = output_file__write_opened(out, write_job, &job, err, sizeof(err));
		if (ret)
			fprintf(stderr, "sledtrace: filter: %s\n", err);
	}
	/* With -o -, standard output is the filter itself. */
	if (!ret)
		fprintf(out->kind == OUTPUT_STDOUT ? stderr : stdout,
			"wrote %s: %zu patterns, %zu of %zu instrumented functions selected\n",
			out->path, filter__count(f), count_selected(f, map, syms), map->nfuncs);
	free(k.v);
	filter__free(f);
	return ret;
}

static int run(void *set, char **operands, int noperands)
{
	struct filter_args *a = set;
	struct instrumented_opts o = { .names = { .no_srcloc = true } };
	struct instrumented io = { 0 };
	struct output_file out;
	char err[8192];
	int ret;

	(void)noperands;
	a->object = operands[0];
	/* A bad -o fails before anything is read. */
	ret = output_file__create(&out, a->output, err, sizeof(err));
	if (!ret)
		ret = instrumented__open(&io, a->object, &o, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	else
		ret = build_and_write(a, &out, io.elf, io.map, io.syms);
	output_file__abort(&out);
	instrumented__close(&io);
	return ret ? EXIT_FAILURE_RUN : EXIT_OK;
}

const struct cli_command cmd_filter = {
	.name = "filter",
	.summary = "write a filter file (regexes or exact names) for an object",
	.synopsis = "[OPTIONS] OBJECT -o FILE",
	.about = "Writes a filter file that 'sledtrace record --filter-file' reads.  The "
		 "selection options mean the same as record's: each REGEX is matched against "
		 "the demangled and the mangled name of every instrumented function of OBJECT, "
		 "excludes win, and a REGEX that matches nothing is a warning.  The file records "
		 "OBJECT's build-id, so record can tell when the object was rebuilt.",
	.operand = "OBJECT",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
};
