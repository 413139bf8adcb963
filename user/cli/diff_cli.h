/* SPDX-License-Identifier: MIT */
/* diff_cli.h: the comparison options that `sledtrace diff` and `sledtrace
 * bench` share, defined once (one spelling, one help text, one default),
 * turned into the settings of a comparison (diff/compare.h), and its
 * verdict into an exit status.  A command embeds struct diff_cli in its settings and puts
 * DIFF_CLI_OPTIONS(its struct, member) into its option table. */
#ifndef SLEDTRACE_CLI_DIFF_CLI_H
#define SLEDTRACE_CLI_DIFF_CLI_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/options.h"
#include "cli/times.h"
#include "diff/compare.h"

struct diff_cli {
	struct cli_list fail_on;
	uint64_t min_time;
	double confidence, noise_floor;
	int inconclusive; /* the exit status of an inconclusive verdict: 0, 1 or 2 */
	int sort;	  /* enum diff_sort */
	uint32_t top;
	const char *function;
	bool by_thread, by_process;
	enum report_times times;
};

extern const char *const diff_cli_sort_names[];
extern const char *const diff_cli_inconclusive_names[];

#define DIFF_CLI_OPTIONS(T, m)                                                                     \
	CLI_LIST(0, "fail-on", T, m.fail_on, "RULE",                                               \
		 "exit 1 when RULE fires: METRIC OP THRESHOLD[%][:REGEX], METRIC calls, total, "   \
		 "self, avg, cpu, cpu-self (on-CPU time), edge-calls (one caller -> callee "       \
		 "path), allocs, alloc-bytes, syscalls, page-faults (a function's own, "           \
		 "traces recorded with --costs), or edge-allocs, edge-alloc-bytes, "               \
		 "edge-syscalls, edge-page-faults (a path's, callees included), OP > >= < <=, "    \
		 "e.g. 'calls>0%', "                                                               \
		 "'self>10%:^parse_', 'total>2ms', 'cpu-self>10%', 'edge-calls>0%', 'allocs>0%'"), \
		CLI_PERCENT(0, "confidence", T, m.confidence, "95%", 50, 100,                      \
			    "a time rule fires only on a change this sure to be real, corrected "  \
			    "for the number of functions tested"),                                 \
		CLI_PERCENT(0, "noise-floor", T, m.noise_floor, "0.5%", 0, 100,                    \
			    "a time change smaller than this share of the run's total self time "  \
			    "(on-CPU self time for cpu rules) never fires a rule (0% to let any "  \
			    "change fire)"),                                                       \
		CLI_DURATION(0, "min-time", T, m.min_time, "0s",                                   \
			     "time changes smaller than this never fire a rule"),                  \
		CLI_ENUM(0, "inconclusive", T, m.inconclusive, diff_cli_inconclusive_names,        \
			 "EXIT", "pass",                                                           \
			 "how an inconclusive verdict (too few runs, too much noise, lost "        \
			 "events) exits: pass 0, fail 1, error 2"),                                \
		CLI_ENUM(0, "sort", T, m.sort, diff_cli_sort_names, "KEY", "impact",               \
			 "impact: fired rules, then undecided, then changes, then self-time "      \
			 "change; or the size of a metric's change; or name"),                     \
		CLI_UINT(0, "top", T, m.top, "N", "all", 0, UINT32_MAX,                            \
			 "show at most N functions (0: all); fired rules are always listed"),      \
		CLI_STRING(0, "function", T, m.function, "REGEX", "all",                           \
			   "compare only functions whose name matches (POSIX extended)"),          \
		CLI_FLAG(0, "by-thread", T, m.by_thread, "one row per function and thread name"),  \
		CLI_FLAG(0, "by-process", T, m.by_process,                                         \
			 "one row per function and process name"),                                 \
		CLI_TIMES(T, m.times)

void diff_cli__init(struct diff_cli *c);
/* For a command's check(): rules and regexes parse. */
int diff_cli__check(const struct diff_cli *c, char *err, size_t errlen);

/* The settings as the comparison takes them (diff/compare.h): the rules
 * parsed, the regex compiled.  opts points into the struct: keep it in
 * place until diff_cli__opts_free. */
struct diff_cli_opts {
	struct diff_opts o;
	struct diff_rule *rules[DIFF_MAX_RULES];
	regex_t re;
};

/* After diff_cli__check; then diff_cli__opts_free. */
void diff_cli__opts(const struct diff_cli *c, struct diff_cli_opts *co);
void diff_cli__opts_free(struct diff_cli_opts *co);
/* The exit status of a comparison's result (diff_compare__run, or bench's
 * that ends in one): 0 pass, 1 a rule fired, 2 an unreadable trace or runs
 * that cannot be compared (-1); inconclusive exits as --inconclusive
 * says. */
int diff_cli__status(const struct diff_cli *c, int verdict);
/* `sledtrace diff`'s comparison: diff_cli__opts, diff_compare__run,
 * diff_cli__status. */
int diff_cli__compare(const struct diff_cli *c, const char *cmd, char **const paths[2],
		      const size_t npaths[2], const struct diff_output *outs, size_t nouts,
		      bool log_findings);
/* The columns of the terminal on standard output, 0 when it is none. */
unsigned diff_cli__terminal_width(void);

#endif
