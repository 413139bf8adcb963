// SPDX-License-Identifier: MIT
/* cmd_report.c: `sledtrace report [OPTIONS] TRACE`: its option table; the
 * aggregation and the formats are analysis/report*.c's. */
#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analysis/critical_path.h"
#include "analysis/report.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/times.h"
#include "format/perfetto/perfetto_reader.h"
#include "format/stats_line.h"

#define S struct report_opts

_Static_assert(sizeof(enum report_format) == sizeof(int), "CLI_ENUM stores an int");
_Static_assert(sizeof(enum report_sort) == sizeof(int), "CLI_ENUM stores an int");
_Static_assert(sizeof(enum report_times) == sizeof(int), "CLI_ENUM stores an int");

/* In enum report_format's and enum report_sort's order. */
static const char *const format_names[] = { "table", "tsv", "csv", "json", "bmf", NULL };
static const char *const sort_names[] = { "calls", "total", "self",	"name", "avg",
					  "max",   "cpu",   "cpu-self", "wait", NULL };

static const struct cli_option options[] = {
	CLI_ENUM(0, "sort", S, sort, sort_names, "KEY", "calls",
		 "order rows by this column, largest first (name: alphabetical; cpu, cpu-self: "
		 "on-CPU time; wait: self time off the CPU)"),
	CLI_UINT(0, "top", S, top, "N", "all", 1, UINT32_MAX, "print the first N rows only"),
	CLI_FLAG(0, "by-thread", S, by_thread, "one row per function and thread (with its name)"),
	CLI_FLAG(0, "by-process", S, by_process, "one row per function and process"),
	CLI_STRING(0, "function", S, function, "REGEX", "all",
		   "only functions whose name matches REGEX (POSIX extended)"),
	CLI_FLAG(0, "syscalls", S, syscalls,
		 "print each function's own system calls by name, most made first (a trace "
		 "recorded with record --costs)"),
	CLI_STRING(0, "callers", S, callers, "FN", "none",
		   "print the direct callers of the function named FN, with call counts"),
	CLI_STRING(0, "callees", S, callees, "FN", "none",
		   "print the functions FN calls directly, with call counts"),
	CLI_STRING(0, "critical-path", S, critical_path, "REGEX", "none",
		   "for the slowest call of a function matching REGEX, what its time went to on "
		   "every thread it waited on: the frames that ran, the waits for a CPU, and the "
		   "wakeups that ended its sleeps (followed back to their wakers); table or json"),
	CLI_UINT(0, "critical-path-calls", S, critical_calls, "N", "1", 1, 10000,
		 "with --critical-path: the paths of the N slowest calls, slowest first (N "
		 "larger than the calls: each call)"),
	CLI_ENUM(0, "format", S, format, format_names, "FORMAT", "table",
		 "an aligned table fitted to the terminal, tab- or comma-separated values, "
		 "JSON, or bmf: Bencher Metric Format JSON for `bencher run --adapter json`, a "
		 "benchmark per function (FN@THREAD with --by-thread, FN@PROCESS with "
		 "--by-process) with calls, total-time and self-time in ns (schemas: "
		 "docs/exports.md)"),
	CLI_TIMES(S, times),
	CLI_END,
};

/* Options that exclude each other, and a regex that does not compile,
 * are usage errors found before the trace is opened. */
static int check(void *set, char *err, size_t errlen)
{
	S *o = set;
	regex_t re;

	if (o->by_thread && o->by_process) {
		snprintf(err, errlen, "--by-thread and --by-process exclude each other");
		return -1;
	}
	if (o->callers && o->callees) {
		snprintf(err, errlen, "--callers and --callees exclude each other");
		return -1;
	}
	if ((o->callers || o->callees) && (o->by_thread || o->by_process || o->function)) {
		snprintf(err, errlen,
			 "--callers/--callees print edges of one function: no --by-thread, "
			 "--by-process or --function");
		return -1;
	}
	if (o->critical_path &&
	    (o->callers || o->callees || o->by_thread || o->by_process || o->function || o->top ||
	     (o->format != REPORT_TABLE && o->format != REPORT_JSON))) {
		snprintf(err, errlen,
			 "--critical-path prints one call's path: no --callers, --callees, "
			 "--by-thread, --by-process, --function or --top; --format table or json");
		return -1;
	}
	if (o->format == REPORT_BMF && (o->callers || o->callees)) {
		snprintf(err, errlen,
			 "--format=bmf prints a benchmark per function: no --callers or --callees");
		return -1;
	}
	if (o->syscalls &&
	    (o->callers || o->callees || o->critical_path || o->format == REPORT_BMF)) {
		snprintf(err, errlen,
			 "--syscalls prints system calls per function: no --callers, --callees, "
			 "--critical-path or --format=bmf");
		return -1;
	}
	if (o->critical_calls && !o->critical_path) {
		snprintf(err, errlen, "--critical-path-calls is for --critical-path");
		return -1;
	}
	if (o->critical_path) {
		if (regcomp(&re, o->critical_path, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errlen, "bad --critical-path regex '%s'", o->critical_path);
			return -1;
		}
		regfree(&re);
	}
	if (o->function) {
		if (regcomp(&re, o->function, REG_EXTENDED | REG_NOSUB)) {
			snprintf(err, errlen, "bad --function regex '%s'", o->function);
			return -1;
		}
		regfree(&re);
	}
	return 0;
}

/* Columns of the terminal the table goes to; 0 (no limit) when not one. */
static uint32_t term_width(void)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	return env && atoi(env) > 0 ? (uint32_t)atoi(env) : 0;
}

/* The trace is read twice: a file, not standard input. */
static int critical_path(const S *o, const char *trace)
{
	char err[512];
	int rc;

	if (!strcmp(trace, "-")) {
		fprintf(stderr,
			"sledtrace: report: --critical-path needs a TRACE file, not "
			"standard input\n");
		return EXIT_USAGE;
	}
	rc = critical_path__report(trace, o->critical_path, o->critical_calls,
				   o->format == REPORT_JSON, stdout, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sledtrace: %s\n", err);
	return rc ? EXIT_FAILURE_RUN : EXIT_OK;
}

static int run(void *set, char **operands, int noperands)
{
	S *o = set;
	struct report *r = NULL;
	struct frame_sink sink;
	char err[512];
	int rc;

	(void)noperands;
	if (o->critical_path)
		return critical_path(o, operands[0]);
	o->width = o->format == REPORT_TABLE ? term_width() : 0;
	if (report__new(o, &r)) {
		fprintf(stderr, "sledtrace: out of memory\n");
		return EXIT_FAILURE_RUN;
	}
	sink = report__sink(r);
	rc = perfetto_reader__read(operands[0], &sink, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sledtrace: %s\n", err);
	else if ((rc = report__print(r, stdout)) == -EINVAL && o->syscalls) {
		fprintf(stderr,
			"sledtrace: report: --syscalls: %s was not recorded with record --costs\n",
			operands[0]);
		report__free(r);
		return EXIT_USAGE;
	} else if (rc == -ENOENT)
		fprintf(stderr, "sledtrace: report: no function named '%s' in %s\n",
			o->callers ? o->callers : o->callees, operands[0]);
	else if (rc)
		fprintf(stderr, "sledtrace: report: cannot write output\n");
	/* BMF has no place for the trace's statistics: a lost event is said
	 * here, as convert says it */
	if (!rc && o->format == REPORT_BMF && stats_line__lost(report__stats(r)))
		fprintf(stderr,
			"sledtrace: warning: the trace lost events (ringbuf_drops=%" PRIu64
			" unmatched_exits=%" PRIu64 "): counts are lower bounds\n",
			report__stats(r)->ringbuf_drops, report__stats(r)->unmatched_exits);
	report__free(r);
	return rc ? EXIT_FAILURE_RUN : EXIT_OK;
}

static void init(void *set)
{
	((S *)set)->times = CLI_TIMES_DEFAULT;
}

const struct cli_command cmd_report = {
	.name = "report",
	.summary = "per-function calls, times, percentiles, callers of a trace",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Reads TRACE ('-' is standard input) and prints, per function, its calls, "
		 "inclusive (total) and exclusive (self) time, with their on-CPU part when the "
		 "trace has scheduler switches, min/avg/p50/p99/max duration "
		 "and share of self time, then the trace's statistics: dropped, inferred and "
		 "unfinished events.  Long names are elided in the middle, and on a narrow "
		 "terminal columns left out, to fit it ($COLUMNS when not one); the other "
		 "formats keep them whole.",
	.operand = "TRACE",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
