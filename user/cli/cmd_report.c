// SPDX-License-Identifier: MIT
/* cmd_report.c: `sledtrace report [OPTIONS] TRACE`: reads a Perfetto trace
 * and prints per-function calls, inclusive and self time (see report.c). */
#include <stdio.h>

#include "analysis/report.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "format/perfetto_reader.h"

#define S struct report_opts

_Static_assert(sizeof(enum report_format) == sizeof(int), "CLI_ENUM stores an int");
_Static_assert(sizeof(enum report_sort) == sizeof(int), "CLI_ENUM stores an int");

static const char *const format_names[] = { "table", "tsv", NULL };
static const char *const sort_names[] = { "calls", "total", "self", "name", NULL };

static const struct cli_option options[] = {
	CLI_FLAG(0, "by-thread", S, by_thread, "one row per function and thread"),
	CLI_ENUM(0, "format", S, format, format_names, "FORMAT", "table",
		 "an aligned table, or tab-separated values"),
	CLI_ENUM(0, "sort", S, sort, sort_names, "KEY", "calls",
		 "order rows by this column, largest first (name: alphabetical)"),
	CLI_END,
};

static int run(void *set, char **operands, int noperands)
{
	struct report *r = NULL;
	struct frame_sink sink;
	char err[512];
	int rc;

	(void)noperands;
	if (report__new(set, &r)) {
		fprintf(stderr, "sledtrace: out of memory\n");
		return EXIT_FAILURE_RUN;
	}
	sink = report__sink(r);
	rc = perfetto_reader__read(operands[0], &sink, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sledtrace: %s\n", err);
	else if ((rc = report__print(r, stdout)))
		fprintf(stderr, "sledtrace: report: cannot write output\n");
	report__free(r);
	return rc ? EXIT_FAILURE_RUN : EXIT_OK;
}

const struct cli_command cmd_report = {
	.name = "report",
	.summary = "per-function table (calls, total, self) of a trace",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Reads TRACE ('-' is standard input) and prints, per function, its calls, "
		 "inclusive (total) and exclusive (self) time, then the trace's statistics: "
		 "dropped, inferred and unfinished events.",
	.operand = "TRACE",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.run = run,
	.settings_size = sizeof(S),
};
