// SPDX-License-Identifier: MIT
/* cmd_list.c: `sledtrace list OBJECT`, the instrumented functions of one
 * object with their sled counts and source locations, and how many a filter
 * selects.  It is the quickest way to check that a build has sleds and what
 * `record` would attach to with the same -F/-N/--filter-file options. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "object/debuginfo.h"
#include "object/instrumented.h"
#include "probes/exit_policy.h"
#include "probes/probe_plan.h"
#include "select/select.h"

struct list_args {
	const char *path;
	bool mangled, no_xray, exits;
	const char *debug_dir;
	struct select_args sel;
};

#define S struct list_args

static const struct cli_option options[] = {
	CLI_SELECT('F', "filter", S, sel, 'F', "REGEX",
		   "only functions whose name matches REGEX (POSIX ERE)"),
	CLI_SELECT('N', "exclude", S, sel, 'N', "REGEX",
		   "not functions matching REGEX (wins over --filter)"),
	CLI_SELECT(0, "filter-file", S, sel, 'f', "FILE",
		   "patterns from FILE (see 'sledtrace filter')"),
	CLI_FLAG(0, "no-xray", S, no_xray, "list function symbols (what record --no-xray probes)"),
	CLI_STRING(0, "debug-dir", S, debug_dir, "DIR", DEBUGINFO_ROOT,
		   "with --no-xray, where a stripped OBJECT's debug files are (.build-id/...)"),
	CLI_FLAG(0, "mangled", S, mangled, "show raw symbol names instead of demangled ones"),
	CLI_FLAG(0, "exits", S, exits,
		 "add how record --exit=mixed (auto's fallback when the executable cannot be "
		 "rewritten) sees each function's returns: 'ret' (uretprobe) or 'infer' "
		 "(inferred)"),
	CLI_END,
};

static int check(void *set, char *err, size_t errlen)
{
	S *a = set;

	if (a->debug_dir && !a->no_xray) {
		snprintf(err, errlen, "--debug-dir only means something with --no-xray");
		return -1;
	}
	return cli_check_regexes(&a->sel, err, errlen);
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
			const struct xray_map *map, struct symbols *syms, const bool *selected,
			size_t nselected)
{
	size_t entry = 0, exit = 0, tail = 0;
	bool filtered = a->sel.n > 0;
	/* What record --exit=mixed probes on this file. */
	struct exit_policy mixed = { .copy = EXIT_COPY_ORIGINAL, .returns = RETURNS_MIXED };
	struct object_exits object_exits = exit_policy__object(&mixed, obj, EXIT_COPY_ORIGINAL);

	printf("%6s  %-18s  %-11s  %s%s\n", "ID", "ADDRESS", "SLEDS E/X/T",
	       a->exits ? "EXIT  " : "", "NAME  LOCATION");
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct xray_function *f = &map->funcs[i];
		char exits[16] = "";

		if (!selected[f->id])
			continue;
		if (a->exits) {
			enum exit_returns r = probe_plan__function_returns(obj, map, f,
									   &object_exits);

			snprintf(exits, sizeof(exits), "%-6s",
				 r == RETURNS_URETPROBE ? "ret" : exit_returns__name(r));
		}
		print_row(f, symbols__locate(syms, f->id), exits);
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

static int load(struct list_args *a, struct instrumented *io, bool **selected, size_t *nselected,
		char *err, size_t len)
{
	struct instrumented_opts o = { .no_xray = a->no_xray,
				       .debug_dir = a->debug_dir,
				       .names = { .mangled = a->mangled } };
	struct filter *f = NULL;
	int ret;

	ret = instrumented__open(io, a->path, &o, err, len);
	if (!ret && a->sel.n)
		ret = select_args__filter(&a->sel, a->path, elf_object__build_id(io->elf), &f, err,
					  len);
	if (!ret)
		ret = select_functions(f, io->syms, io->map, selected, nselected);
	if (ret == -ENOMEM)
		snprintf(err, len, "out of memory");
	filter__free(f);
	return ret;
}

static int run(void *set, char **operands, int noperands)
{
	struct list_args *a = set;
	struct instrumented io = { 0 };
	bool *selected = NULL;
	size_t nselected = 0;
	char err[8192];
	int ret;

	(void)noperands;
	a->path = operands[0];
	ret = load(a, &io, &selected, &nselected, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	else
		print_table(a, io.elf, io.map, io.syms, selected, nselected);
	free(selected);
	instrumented__close(&io);
	return ret ? EXIT_FAILURE_RUN : EXIT_OK;
}

const struct cli_command cmd_list = {
	.name = "list",
	.summary = "list the instrumented functions of an object",
	.synopsis = "[OPTIONS] OBJECT",
	.about = "Lists the XRay-instrumented functions of OBJECT (an executable or shared "
		 "library): XRay function id, address, sleds "
		 "(entry/exit/tail), name and source location, then how many functions the "
		 "filter selects.  The filter options mean the same as record's.",
	.operand = "OBJECT",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
};
