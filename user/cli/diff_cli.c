// SPDX-License-Identifier: MIT
/* diff_cli.c: see diff_cli.h. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/diff_cli.h"
#include "cli/values.h"
#include "diff/diff.h"
#include "diff/judge_rules.h"
#include "diff/print_text.h"
#include "diff/read_traces.h"

/* In enum diff_sort's order. */
const char *const diff_cli_sort_names[] = { "impact", "calls", "total",	   "self", "avg",
					    "name",   "cpu",   "cpu-self", NULL };
/* Index = exit status. */
const char *const diff_cli_inconclusive_names[] = { "pass", "fail", "error", NULL };

void diff_cli__init(struct diff_cli *c)
{
	c->times = CLI_TIMES_DEFAULT;
	c->confidence = 0.95;
	c->noise_floor = 0.005;
}

int diff_cli__check(const struct diff_cli *c, char *err, size_t errlen)
{
	struct diff_rule *r;
	char why[512];
	regex_t re;

	if (c->by_thread && c->by_process)
		return snprintf(err, errlen, "--by-thread and --by-process exclude each other"), -1;
	if (c->fail_on.n > DIFF_MAX_RULES)
		return snprintf(err, errlen, "--fail-on: at most %d rules", DIFF_MAX_RULES), -1;
	for (size_t i = 0; i < c->fail_on.n; i++) {
		if (diff_rule__parse(c->fail_on.v[i], cli_parse_duration, &r, why, sizeof(why)))
			return snprintf(err, errlen, "--fail-on: %s", why), -1;
		diff_rule__free(r);
	}
	if (c->function) {
		if (regcomp(&re, c->function, REG_EXTENDED | REG_NOSUB))
			return snprintf(err, errlen, "--function: bad regex '%s'", c->function), -1;
		regfree(&re);
	}
	return 0;
}

unsigned diff_cli__terminal_width(void)
{
	struct winsize ws;

	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws))
		return ws.ws_col;
	return 0;
}

static int exit_status(const struct diff_cli *c, const struct diff *d)
{
	switch (diff__summary(d)->verdict) {
	case DIFF_PASS:
		return EXIT_OK;
	case DIFF_FAIL:
		return 1;
	default:
		return c->inconclusive;
	}
}

static void log_verdict(const struct diff *d, const char *cmd, bool findings)
{
	const struct diff_summary *s = diff__summary(d);
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "sledtrace: %s: ", cmd);
	if (findings)
		diff__print_findings(d, true, s->verdict != DIFF_FAIL, prefix, stderr);
	if (s->verdict != DIFF_INCONCLUSIVE)
		return;
	for (size_t i = 0; i < s->nreasons; i++)
		fprintf(stderr, "%sinconclusive: %s\n", prefix, s->reasons[i]);
}

/* Reads, compares, prints; the exit status. */
static int run_diff(const struct diff_cli *c, struct diff *d, const char *cmd,
		    char **const paths[2], const size_t npaths[2], const char *const *calls,
		    const struct diff_cli_output *outs, size_t nouts, bool log_findings)
{
	char err[1024];

	if (diff__read(d, paths, npaths, err, sizeof(err)) ||
	    (calls && diff__read_calls(d, calls, err, sizeof(err))) ||
	    diff__finish(d, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: %s\n", err);
		return EXIT_USAGE;
	}
	for (size_t i = 0; i < nouts; i++) {
		struct diff_print_opts p = { .format = outs[i].format,
					     .top = c->top,
					     .width = outs[i].width };

		if (diff__print(d, &p, outs[i].f)) {
			fprintf(stderr, "sledtrace: %s: cannot write %s\n", cmd, outs[i].name);
			return EXIT_USAGE;
		}
	}
	log_verdict(d, cmd, log_findings);
	return exit_status(c, d);
}

int diff_cli__compare(const struct diff_cli *c, const char *cmd, char **const paths[2],
		      const size_t npaths[2], const char *const *calls,
		      const struct diff_cli_output *outs, size_t nouts, bool log_findings)
{
	struct diff_rule *rules[DIFF_MAX_RULES];
	struct diff_opts o = {
		.group = c->by_thread	 ? DIFF_BY_THREAD
			 : c->by_process ? DIFF_BY_PROCESS
					 : DIFF_BY_FUNCTION,
		.sort = (enum diff_sort)c->sort,
		.min_time_ns = c->min_time,
		.times = c->times,
		.confidence = c->confidence,
		.noise_floor = c->noise_floor,
		.rules = rules,
		.calls_elsewhere = calls != NULL,
	};
	struct diff *d = NULL;
	regex_t re;
	char why[512];
	int rc;

	/* diff_cli__check parsed every rule and regex already. */
	for (; o.nrules < c->fail_on.n; o.nrules++)
		diff_rule__parse(c->fail_on.v[o.nrules], cli_parse_duration, &rules[o.nrules], why,
				 sizeof(why));
	if (c->function && !regcomp(&re, c->function, REG_EXTENDED | REG_NOSUB))
		o.function = &re;
	if (diff__new(&o, &d))
		fputs("sledtrace: out of memory\n", stderr);
	rc = d ? run_diff(c, d, cmd, paths, npaths, calls, outs, nouts, log_findings) : EXIT_USAGE;
	diff__free(d);
	for (size_t i = 0; i < o.nrules; i++)
		diff_rule__free(rules[i]);
	if (o.function)
		regfree(&re);
	return rc;
}
