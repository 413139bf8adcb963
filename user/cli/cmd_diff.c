// SPDX-License-Identifier: MIT
/* cmd_diff.c: `sledtrace diff BASE HEAD [OPTIONS]`: compares the traces
 * of a base build with those of a candidate, per function and call path,
 * and applies --fail-on rules.  Exit status: 0 no rule fired, 1 a rule
 * fired, 2 bad usage, an unreadable trace or runs that cannot be compared;
 * an inconclusive verdict as --inconclusive says (the CI contract,
 * docs/ci.md). */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/diff_cli.h"
#include "cli/options.h"

struct diff_args {
	struct cli_list base, head;
	int format; /* enum diff_format */
	struct diff_cli c;
};

#define S struct diff_args

static const char *const format_names[] = { "table", "markdown", "json", "csv", NULL };

static const struct cli_option options[] = {
	CLI_LIST(0, "base", S, base, "TRACE",
		 "a trace of the base build, or a quoted glob of several runs (instead of the "
		 "BASE operand)"),
	CLI_LIST(0, "head", S, head, "TRACE",
		 "a trace of the candidate build, or a quoted glob (instead of HEAD)"),
	CLI_ENUM(0, "format", S, format, format_names, "FORMAT", "table",
		 "a table; markdown for a CI job summary; json (docs/diff.md); csv"),
	DIFF_CLI_OPTIONS(S, c),
	CLI_END,
};

/* Operand errors, which check() cannot see: worded like the parser's. */
static int usage(const char *what)
{
	fprintf(stderr, "sledtrace: diff: %s (see 'sledtrace diff --help')\n", what);
	return EXIT_USAGE;
}

/* Both sides' trace paths after glob expansion. */
struct sides {
	char **paths[2];
	size_t npaths[2];
};

static int add_path(struct sides *s, int side, const char *path)
{
	char **v = realloc(s->paths[side], (s->npaths[side] + 1) * sizeof(*v));

	if (!v)
		return -1;
	s->paths[side] = v;
	if (!(v[s->npaths[side]] = strdup(path)))
		return -1;
	s->npaths[side]++;
	return 0;
}

/* A pattern that matches nothing is an error only if it is a glob: a
 * plain path is left for the reader to report (missing, unreadable). */
static int add_pattern(struct sides *s, int side, const char *pattern)
{
	glob_t g;
	int rc = glob(pattern, 0, NULL, &g);

	if (rc == GLOB_NOMATCH && !strpbrk(pattern, "*?[")) {
		globfree(&g);
		return add_path(s, side, pattern) ? EXIT_USAGE : 0;
	}
	if (rc) {
		globfree(&g);
		fprintf(stderr, "sledtrace: diff: no trace matches '%s'\n", pattern);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = add_path(s, side, g.gl_pathv[i]) ? EXIT_USAGE : 0;
	globfree(&g);
	if (rc)
		fputs("sledtrace: out of memory\n", stderr);
	return rc;
}

static int expand(const struct diff_args *a, char **operands, int noperands, struct sides *s)
{
	const struct cli_list *lists[2] = { &a->base, &a->head };
	int rc = 0;

	for (int side = 0; side < 2 && !rc; side++) {
		if (noperands)
			rc = add_pattern(s, side, operands[side]);
		for (size_t i = 0; i < lists[side]->n && !rc; i++)
			rc = add_pattern(s, side, lists[side]->v[i]);
	}
	return rc;
}

static void sides_free(struct sides *s)
{
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < s->npaths[side]; i++)
			free(s->paths[side][i]);
		free(s->paths[side]);
	}
}

static int check(void *set, char *err, size_t errlen)
{
	return diff_cli__check(&((S *)set)->c, err, errlen);
}

static int run(void *set, char **operands, int noperands)
{
	struct diff_args *a = set;
	struct diff_output out = { .format = (enum diff_format)a->format,
				   .f = stdout,
				   .name = "standard output" };
	struct sides s = { 0 };
	int rc;

	if (noperands != 0 && (a->base.n || a->head.n))
		return usage("give traces either as BASE HEAD or with --base and --head");
	if (noperands == 1)
		return usage("missing HEAD");
	if (noperands == 0 && (!a->base.n || !a->head.n))
		return usage("missing BASE and HEAD (or --base and --head)");
	if ((rc = expand(a, operands, noperands, &s))) {
		sides_free(&s);
		return rc;
	}
	out.width = out.format == DIFF_FORMAT_TABLE ? diff_cli__terminal_width() : 0;
	/* Other formats go to files and job summaries: say why in the log. */
	rc = diff_cli__compare(&a->c, "diff", s.paths, s.npaths, &out, 1,
			       out.format != DIFF_FORMAT_TABLE);
	sides_free(&s);
	return rc;
}

static void init(void *set)
{
	diff_cli__init(&((S *)set)->c);
}

const struct cli_command cmd_diff = {
	.name = "diff",
	.summary = "compare traces of two builds per function; fail on rules (CI)",
	.synopsis = "[OPTIONS] BASE HEAD",
	.about = "Compares the traces of a base build (BASE, or --base) with those of a "
		 "candidate (HEAD, or --head) per function and per caller -> callee path, "
		 "matched by name and object file name: calls, total, self and average time, "
		 "their change, and functions new or gone.  Several traces per side (quoted "
		 "globs or repeated options) are compared by their medians, with their spread.  "
		 "Counts are exact; a time rule fires only on a change that Welch's test finds "
		 "real at --confidence after the shift all functions share is taken out, "
		 "corrected for the number of functions, and larger than --noise-floor; when "
		 "the runs cannot tell, the verdict is inconclusive and says how many runs "
		 "would.  docs/diff.md has the details, docs/ci.md ready CI jobs.",
	.exit_status =
		"0 pass, 1 a rule fired (each is listed), 2 usage error, a trace that cannot "
		"be read or runs that cannot be compared; inconclusive: as --inconclusive says "
		"(0 by default)",
	.operand = "BASE HEAD",
	.options = options,
	.min_operands = 0,
	.max_operands = 2,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
