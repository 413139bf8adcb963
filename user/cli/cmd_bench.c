// SPDX-License-Identifier: MIT
/* cmd_bench.c: `sledtrace bench --base CMD --head CMD -o DIR`: the whole CI
 * job in one command; its options, read and checked here, and its work,
 * bench/bench.c.  Exit status as diff's; a command that fails or cannot
 * be recorded is 2: there is no verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "cli/commands.h"
#include "cli/diff_cli.h"
#include "cli/options.h"

struct bench_args {
	const char *cmd[2]; /* --base, --head */
	const char *dir, *summary, *bmf;
	const char *budget; /* --budget: "off" or a share like "5%" */
	uint32_t runs, warmup, max_runs;
	struct cli_list record_opts;
	struct diff_cli c;
};

#define S struct bench_args

static const struct cli_option options[] = {
	CLI_STRING(0, "base", S, cmd[0], "CMD", "none",
		   "the base build's command line; a simple command is run directly, one with "
		   "shell syntax (&&, |, ;, redirections) by sh -c"),
	CLI_STRING(0, "head", S, cmd[1], "CMD", "none", "the candidate build's command line"),
	CLI_UINT('n', "runs", S, runs, "N", "5", 1, 99,
		 "record each command N times, interleaved: base, head, head, base, ..."),
	CLI_UINT(0, "max-runs", S, max_runs, "N", "--runs", 1, 99,
		 "when the runs leave the verdict inconclusive, or pass without clearing every "
		 "function, and more could decide it, record more rounds, up to N a side, and "
		 "look again; each of the two looks judges at "
		 "half the error rate --confidence allows, so that looking twice adds no false "
		 "alarms"),
	CLI_UINT(0, "warmup", S, warmup, "N", "1", 0, 10,
		 "run each command N times unrecorded first (file cache, CPU frequency)"),
	CLI_STRING('o', "output", S, dir, "DIR", "none",
		   "where everything goes (created; it must hold no traces yet): base-1.pftrace, "
		   "..., each run's output in base-1.log, ..., diff.json and summary.md"),
	CLI_LIST(0, "record-opt", S, record_opts, "OPT",
		 "an option for every recording, as `sledtrace record` spells it, e.g. "
		 "--record-opt=--ring-size=64M"),
	CLI_STRING(0, "budget", S, budget, "PCT", "5%",
		   "times from runs recorded with `record --budget=PCT` (real times: the most "
		   "called functions left unprobed, the same ones on both sides), calls and call "
		   "paths from one run a side with every function probed; off: every run with "
		   "every function probed"),
	CLI_STRING(0, "summary", S, summary, "FILE", "none",
		   "also append the markdown summary to FILE (a GitHub job summary: "
		   "$GITHUB_STEP_SUMMARY)"),
	CLI_STRING(0, "bmf", S, bmf, "FILE", "none",
		   "also write the head side as Bencher Metric Format JSON to FILE, for `bencher "
		   "run --adapter json --file FILE`: a benchmark per function with calls, "
		   "total-time and self-time, each the median of the head's runs with their "
		   "least and greatest as lower_value and upper_value (docs/exports.md)"),
	DIFF_CLI_OPTIONS(S, c),
	CLI_END,
};

/* "off", or what record --budget takes (record checks it again). */
static bool budget_ok(const char *b)
{
	char *end;
	double v;

	if (!strcmp(b, "off"))
		return true;
	v = strtod(b, &end);
	return end != b && (!*end || !strcmp(end, "%")) && v > 0 && v <= 100;
}

static int check(void *set, char *err, size_t errlen)
{
	S *a = set;

	if (!a->cmd[0] || !a->cmd[1] || !a->dir)
		return snprintf(err, errlen, "--base, --head and -o are needed"), -1;
	if (a->max_runs && a->max_runs < a->runs)
		return snprintf(err, errlen, "--max-runs %u is fewer than --runs %u", a->max_runs,
				a->runs),
		       -1;
	if (!budget_ok(a->budget))
		return snprintf(err, errlen, "--budget wants off or a share like 5%%, not '%s'",
				a->budget),
		       -1;
	if (a->bmf && !strcmp(a->bmf, "-"))
		return snprintf(err, errlen,
				"--bmf wants a file: standard output has the comparison's table"),
		       -1;
	return diff_cli__check(&a->c, err, errlen);
}

static int run(void *set, char **operands, int noperands)
{
	S *a = set;
	struct bench_opts o = {
		.cmd = { a->cmd[0], a->cmd[1] },
		.dir = a->dir,
		.summary = a->summary,
		.bmf = a->bmf,
		.budget = a->budget,
		.runs = a->runs,
		.warmup = a->warmup,
		.max_runs = a->max_runs,
		.record_opts = a->record_opts.v,
		.nrecord_opts = a->record_opts.n,
		.width = diff_cli__terminal_width(),
	};
	struct diff_cli_opts co;
	int rc;

	(void)operands;
	(void)noperands;
	diff_cli__opts(&a->c, &co);
	rc = bench__run(&o, &co.o, a->c.top);
	diff_cli__opts_free(&co);
	return diff_cli__status(&a->c, rc);
}

static void init(void *set)
{
	S *a = set;

	a->runs = 5;
	a->warmup = 1;
	a->budget = "5%";
	diff_cli__init(&a->c);
}

const struct cli_command cmd_bench = {
	.name = "bench",
	.summary = "record two builds N times each, interleaved, and diff them (CI)",
	.synopsis = "--base=CMD --head=CMD [-n N] -o DIR [OPTIONS]",
	.about = "Runs each command --warmup times, then records each --runs times with "
		 "`sledtrace record`, interleaved (base, head, head, base, ...), into DIR, and "
		 "compares the two sides as `sledtrace diff` does: the table on standard "
		 "output, DIR/diff.json and DIR/summary.md.  Commands get /dev/null as input; "
		 "their output goes to DIR/SIDE-N.log.  A CI job is the build and this one "
		 "line (docs/ci.md).",
	.exit_status =
		"0 pass, 1 a rule fired, 2 usage error, a command that failed or runs "
		"that cannot be compared; inconclusive: as --inconclusive says (0 by "
		"default)",
	.operand = "nothing",
	.options = options,
	.min_operands = 0,
	.max_operands = 0,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
