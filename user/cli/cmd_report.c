// SPDX-License-Identifier: MIT
/* cmd_report.c: `sledtrace report [--by-thread] [--format=table|tsv]
 * [--sort=calls|total|self|name] TRACE`: reads a Perfetto trace and prints
 * per-function calls, inclusive and self time (see report.c). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "format/perfetto_reader.h"
#include "analysis/report.h"

static const char usage_text[] =
	"usage: sledtrace report [--by-thread] [--format=table|tsv]\n"
	"                        [--sort=calls|total|self|name] TRACE\n";

static int pick(const char *what, const char *arg, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i]))
			return i;
	fprintf(stderr, "sledtrace: report: unknown %s '%s'\n", what, arg);
	return -1;
}

static int parse(int argc, char **argv, struct report_opts *o, const char **path)
{
	static const char *const formats[] = { "table", "tsv" };
	static const char *const sorts[] = { "calls", "total", "self", "name" };
	static const struct option longopts[] = {
		{ "by-thread", no_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, v;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			o->by_thread = true;
			break;
		case 'f':
			if ((v = pick("format", optarg, formats, 2)) < 0)
				return 1;
			o->format = (enum report_format)v;
			break;
		case 's':
			if ((v = pick("sort key", optarg, sorts, 4)) < 0)
				return 1;
			o->sort = (enum report_sort)v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			fprintf(stderr, "sledtrace: report: bad option (try --help)\n");
			return 1;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "sledtrace: report: expected one TRACE file (try --help)\n");
		return 1;
	}
	*path = argv[optind];
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o = { 0 };
	struct report *r = NULL;
	struct frame_sink sink;
	const char *path = NULL;
	char err[512];
	int rc = parse(argc, argv, &o, &path);

	if (rc >= 0)
		return rc;
	if (report__new(&o, &r)) {
		fprintf(stderr, "sledtrace: out of memory\n");
		return 1;
	}
	sink = report__sink(r);
	rc = perfetto_reader__read(path, &sink, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sledtrace: %s\n", err);
	else if ((rc = report__print(r, stdout)))
		fprintf(stderr, "sledtrace: report: cannot write output\n");
	report__free(r);
	return rc ? 1 : 0;
}
