// SPDX-License-Identifier: MIT
/* cmd_diff.c: `sledtrace diff BASE HEAD [OPTIONS]`: compares the traces
 * of a base build with those of a candidate, per function, and applies
 * --fail-on rules.  Exit status: 0 no rule fired, 1 a rule fired, 2 bad
 * usage or an unreadable trace (the CI contract, docs/ci.md). */
#include <getopt.h>
#include <glob.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis/diff.h"
#include "analysis/diff_format.h"
#include "analysis/diff_rules.h"
#include "cli/commands.h"

static const char usage_text[] =
	"usage: sledtrace diff BASE HEAD [OPTIONS]\n"
	"       sledtrace diff --base=TRACE... --head=TRACE... [OPTIONS]\n"
	"BASE, HEAD and TRACE are trace files or quoted globs ('base-*.pftrace');\n"
	"several traces per side are compared by their medians.\n"
	"  --fail-on=METRIC OP THRESHOLD[%][:REGEX]   e.g. 'calls>0%', 'self>15%:^parse_',\n"
	"                     'total>2ms'; METRIC: calls total self avg; OP: > >= < <=\n"
	"  --min-time=DUR     time changes smaller than DUR (e.g. 50us) never fire\n"
	"  --format=table|markdown|json|csv   --sort=impact|calls|total|self|avg|name\n"
	"  --top=N            at most N functions   --function=REGEX   only these\n"
	"  --by-thread, --by-process          per thread/process name\n"
	"exit status: 0 no rule fired, 1 a rule fired, 2 usage error or unreadable trace\n";

struct diff_args {
	struct diff_opts o;
	struct diff_print_opts p;
	regex_t function;
	bool has_function;
	struct diff_rule *rules[DIFF_MAX_RULES];
	char **paths[2];
	size_t npaths[2];
};

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sledtrace: diff: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(" (try --help)\n", stderr);
	va_end(ap);
	return 2;
}

static int pick(const char *what, const char *arg, const char *const *names, int n, int *out)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	}
	fprintf(stderr, "sledtrace: diff: unknown %s '%s' (try --help)\n", what, arg);
	return 2;
}

static int add_path(struct diff_args *a, int side, const char *path)
{
	char **v = realloc(a->paths[side], (a->npaths[side] + 1) * sizeof(*v));

	if (!v || !(v[a->npaths[side]] = strdup(path))) {
		if (v)
			a->paths[side] = v;
		fputs("sledtrace: out of memory\n", stderr);
		return 2;
	}
	a->paths[side] = v;
	a->npaths[side]++;
	return 0;
}

/* A pattern that matches nothing is an error only if it is a glob: a
 * plain path is left for the reader to report (missing, unreadable). */
static int add_pattern(struct diff_args *a, int side, const char *pattern)
{
	glob_t g;
	int rc = glob(pattern, 0, NULL, &g);

	if (rc == GLOB_NOMATCH && !strpbrk(pattern, "*?[")) {
		globfree(&g);
		return add_path(a, side, pattern);
	}
	if (rc) {
		globfree(&g);
		return usage_error("no trace matches '%s'", pattern);
	}
	for (size_t i = 0; i < g.gl_pathc && !rc; i++)
		rc = add_path(a, side, g.gl_pathv[i]);
	globfree(&g);
	return rc;
}

static int add_rule(struct diff_args *a, const char *text)
{
	char err[512];

	if (a->o.nrules == DIFF_MAX_RULES)
		return usage_error("more than 64 --fail-on rules");
	if (diff_rule__parse(text, &a->rules[a->o.nrules], err, sizeof(err))) {
		fprintf(stderr, "sledtrace: diff: %s\n", err);
		return 2;
	}
	a->o.nrules++;
	return 0;
}

static int parse_number(const char *arg, size_t *out)
{
	char *end;
	unsigned long long v;

	if (*arg < '0' || *arg > '9')
		return usage_error("--top needs a number, not '%s'", arg);
	v = strtoull(arg, &end, 10);
	if (*end)
		return usage_error("--top needs a number, not '%s'", arg);
	*out = (size_t)v;
	return 0;
}

static int parse_option(struct diff_args *a, int c, const char *arg)
{
	static const char *const formats[] = { "table", "markdown", "json", "csv" };
	static const char *const sorts[] = { "impact", "calls", "total", "self", "avg", "name" };
	double ns;
	int v = 0, rc;

	switch (c) {
	case 'b':
	case 'H':
		return add_pattern(a, c == 'H', arg);
	case 'r':
		return add_rule(a, arg);
	case 'm':
		if (diff_parse_duration(arg, &ns))
			return usage_error("bad --min-time '%s' (e.g. 50us, 2ms)", arg);
		a->o.min_time_ns = (uint64_t)ns;
		return 0;
	case 'f':
		rc = pick("format", arg, formats, 4, &v);
		a->p.format = (enum diff_format)v;
		return rc;
	case 's':
		rc = pick("sort key", arg, sorts, 6, &v);
		a->o.sort = (enum diff_sort)v;
		return rc;
	case 'n':
		return parse_number(arg, &a->p.top);
	case 'F':
		if (a->has_function)
			return usage_error("--function given twice");
		if (regcomp(&a->function, arg, REG_EXTENDED | REG_NOSUB))
			return usage_error("bad --function regex '%s'", arg);
		a->has_function = true;
		a->o.function = &a->function;
		return 0;
	case 't':
	case 'p':
		a->o.group = c == 't' ? DIFF_BY_THREAD : DIFF_BY_PROCESS;
		return 0;
	}
	return usage_error("bad option");
}

/* Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, struct diff_args *a)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, 'b' },
		{ "head", required_argument, NULL, 'H' },
		{ "fail-on", required_argument, NULL, 'r' },
		{ "min-time", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "sort", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "function", required_argument, NULL, 'F' },
		{ "by-thread", no_argument, NULL, 't' },
		{ "by-process", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == '?' || c == ':')
			return usage_error("bad option or missing value: '%s'", argv[optind - 1]);
		if ((rc = parse_option(a, c, optarg)))
			return rc;
	}
	if (optind < argc && (a->npaths[0] || a->npaths[1]))
		return usage_error("give traces either as BASE HEAD or with --base/--head");
	if (optind < argc && argc - optind != 2)
		return usage_error("expected BASE and HEAD traces, got %s argument(s)",
				   argc - optind == 1 ? "1" : "more than 2");
	for (int side = 0; optind < argc; side++)
		if ((rc = add_pattern(a, side, argv[optind++])))
			return rc;
	if (!a->npaths[0] || !a->npaths[1])
		return usage_error("expected traces for both sides (BASE HEAD)");
	return -1;
}

static unsigned terminal_width(void)
{
	struct winsize ws;
	const char *cols = getenv("COLUMNS");

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return isatty(STDOUT_FILENO) && cols ? (unsigned)atoi(cols) : 0;
}

static int run(struct diff_args *a)
{
	struct diff *d = NULL;
	char err[512];
	int rc = 2;

	a->o.rules = a->rules;
	if (diff__new(&a->o, &d)) {
		fputs("sledtrace: out of memory\n", stderr);
		return 2;
	}
	if (diff__read(d, a->paths, a->npaths, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: %s\n", err);
		goto out;
	}
	if (diff__finish(d)) {
		fputs("sledtrace: out of memory\n", stderr);
		goto out;
	}
	a->p.width = a->p.format == DIFF_FORMAT_TABLE ? terminal_width() : 0;
	if (diff__print(d, &a->p, stdout)) {
		fputs("sledtrace: diff: cannot write output\n", stderr);
		goto out;
	}
	/* Machine formats go to files and job summaries: say why in the log. */
	if (a->p.format != DIFF_FORMAT_TABLE)
		diff__print_fired(d, "sledtrace: diff: ", stderr);
	rc = diff__fired(d) ? 1 : 0;
out:
	diff__free(d);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = { 0 };
	int rc = parse(argc, argv, &a);

	if (rc < 0)
		rc = run(&a);
	for (size_t i = 0; i < a.o.nrules; i++)
		diff_rule__free(a.rules[i]);
	for (int side = 0; side < 2; side++) {
		for (size_t i = 0; i < a.npaths[side]; i++)
			free(a.paths[side][i]);
		free(a.paths[side]);
	}
	if (a.has_function)
		regfree(&a.function);
	return rc;
}
