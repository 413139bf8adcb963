// SPDX-License-Identifier: MIT
/* cmd_diff.c: `sledtrace diff BASE HEAD [OPTIONS]`: compares the traces
 * of a base build with those of a candidate, per function, and applies
 * --fail-on rules.  Exit status: 0 no rule fired, 1 a rule fired, 2 bad
 * usage or an unreadable trace (the CI contract, docs/ci.md). */
#include <glob.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis/diff.h"
#include "analysis/diff_format.h"
#include "analysis/diff_rules.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/times.h"
#include "cli/values.h"

struct diff_args {
	struct cli_list base, head, fail_on;
	uint64_t min_time;
	int format; /* enum diff_format */
	int sort;   /* enum diff_sort */
	uint32_t top;
	const char *function;
	bool by_thread, by_process;
	enum report_times times;
};

#define S struct diff_args

static const char *const format_names[] = { "table", "markdown", "json", "csv", NULL };
static const char *const sort_names[] = { "impact", "calls", "total", "self", "avg", "name", NULL };

static const struct cli_option options[] = {
	CLI_LIST(0, "base", S, base, "TRACE",
		 "a trace of the base build, or a quoted glob of several runs (instead of the "
		 "BASE operand)"),
	CLI_LIST(0, "head", S, head, "TRACE",
		 "a trace of the candidate build, or a quoted glob (instead of HEAD)"),
	CLI_LIST(0, "fail-on", S, fail_on, "RULE",
		 "exit 1 when RULE fires: METRIC OP THRESHOLD[%][:REGEX], METRIC calls, total, "
		 "self or avg, OP > >= < <=, e.g. 'calls>0%', 'self>15%:^parse_', 'total>2ms'; "
		 "repeatable"),
	CLI_DURATION(0, "min-time", S, min_time, "0s",
		     "time changes smaller than this never fire a rule (noise floor)"),
	CLI_ENUM(0, "format", S, format, format_names, "FORMAT", "table",
		 "a table; markdown for a CI job summary; json (docs/diff.md); csv"),
	CLI_ENUM(0, "sort", S, sort, sort_names, "KEY", "impact",
		 "impact: fired rules, then changes, then self-time change; or the size of a "
		 "metric's change; or name"),
	CLI_UINT(0, "top", S, top, "N", "all", 0, UINT32_MAX,
		 "show at most N functions (0: all); fired rules are always listed"),
	CLI_STRING(0, "function", S, function, "REGEX", "all",
		   "compare only functions whose name matches (POSIX extended)"),
	CLI_FLAG(0, "by-thread", S, by_thread, "one row per function and thread name"),
	CLI_FLAG(0, "by-process", S, by_process, "one row per function and process name"),
	CLI_TIMES(S, times),
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
	struct diff_args *a = set;
	struct diff_rule *r;
	char why[512];
	regex_t re;

	if (a->by_thread && a->by_process)
		return snprintf(err, errlen, "--by-thread and --by-process exclude each other"), -1;
	if (a->fail_on.n > DIFF_MAX_RULES)
		return snprintf(err, errlen, "--fail-on: at most %d rules", DIFF_MAX_RULES), -1;
	for (size_t i = 0; i < a->fail_on.n; i++) {
		if (diff_rule__parse(a->fail_on.v[i], cli_parse_duration, &r, why, sizeof(why)))
			return snprintf(err, errlen, "--fail-on: %s", why), -1;
		diff_rule__free(r);
	}
	if (a->function) {
		if (regcomp(&re, a->function, REG_EXTENDED | REG_NOSUB))
			return snprintf(err, errlen, "--function: bad regex '%s'", a->function), -1;
		regfree(&re);
	}
	return 0;
}

static unsigned terminal_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		return ws.ws_col;
	return 0;
}

/* Reads, compares, prints; the exit status. */
static int compare(struct diff *d, struct sides *s, const struct diff_print_opts *p)
{
	char err[512];

	if (diff__read(d, s->paths, s->npaths, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: %s\n", err);
		return EXIT_USAGE;
	}
	if (diff__finish(d)) {
		fputs("sledtrace: out of memory\n", stderr);
		return EXIT_USAGE;
	}
	if (diff__print(d, p, stdout)) {
		fputs("sledtrace: diff: cannot write output\n", stderr);
		return EXIT_USAGE;
	}
	/* Other formats go to files and job summaries: say why in the log. */
	if (p->format != DIFF_FORMAT_TABLE)
		diff__print_fired(d, "sledtrace: diff: ", stderr);
	return diff__fired(d) ? 1 : EXIT_OK;
}

static int run(void *set, char **operands, int noperands)
{
	struct diff_args *a = set;
	struct diff_rule *rules[DIFF_MAX_RULES];
	struct diff_print_opts p = { .format = (enum diff_format)a->format, .top = a->top };
	struct diff_opts o = {
		.group = a->by_thread	 ? DIFF_BY_THREAD
			 : a->by_process ? DIFF_BY_PROCESS
					 : 0,
		.sort = (enum diff_sort)a->sort,
		.min_time_ns = a->min_time,
		.times = a->times,
		.rules = rules,
	};
	struct sides s = { 0 };
	struct diff *d = NULL;
	regex_t re;
	char why[512];
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
	/* check() parsed every rule and regex already. */
	for (; o.nrules < a->fail_on.n; o.nrules++)
		diff_rule__parse(a->fail_on.v[o.nrules], cli_parse_duration, &rules[o.nrules], why,
				 sizeof(why));
	if (a->function && !regcomp(&re, a->function, REG_EXTENDED | REG_NOSUB))
		o.function = &re;
	p.width = p.format == DIFF_FORMAT_TABLE ? terminal_width() : 0;
	if (diff__new(&o, &d))
		fputs("sledtrace: out of memory\n", stderr);
	rc = d ? compare(d, &s, &p) : EXIT_USAGE;
	diff__free(d);
	for (size_t i = 0; i < o.nrules; i++)
		diff_rule__free(rules[i]);
	if (o.function)
		regfree(&re);
	sides_free(&s);
	return rc;
}

static void init(void *set)
{
	((S *)set)->times = CLI_TIMES_DEFAULT;
}

const struct cli_command cmd_diff = {
	.name = "diff",
	.summary = "compare traces of two builds per function; fail on rules (CI)",
	.synopsis = "[OPTIONS] BASE HEAD",
	.about = "Compares the traces of a base build (BASE, or --base) with those of a "
		 "candidate (HEAD, or --head) per function, matched by name and object file "
		 "name: calls, total, self and average time, their change, and functions new "
		 "or gone.  Several traces per side (quoted globs or repeated options) are "
		 "compared by their medians, with their spread; a time rule fires only on a "
		 "change beyond the noise of each side and --min-time.  docs/diff.md has the "
		 "details, docs/ci.md ready CI jobs.",
	.exit_status =
		"0 no rule fired, 1 a rule fired (each is listed), 2 usage error or a "
		"trace that cannot be read",
	.operand = "BASE HEAD",
	.options = options,
	.min_operands = 0,
	.max_operands = 2,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
