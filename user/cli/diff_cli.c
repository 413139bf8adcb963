// SPDX-License-Identifier: MIT
/* diff_cli.c: see diff_cli.h. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/diff_cli.h"
#include "cli/values.h"
#include "diff/judge_rules.h"

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

void diff_cli__opts(const struct diff_cli *c, struct diff_cli_opts *co)
{
	char why[512];

	memset(co, 0, sizeof(*co));
	co->o.group = c->by_thread    ? DIFF_BY_THREAD
		      : c->by_process ? DIFF_BY_PROCESS
				      : DIFF_BY_FUNCTION;
	co->o.sort = (enum diff_sort)c->sort;
	co->o.min_time_ns = c->min_time;
	co->o.times = c->times;
	co->o.confidence = c->confidence;
	co->o.noise_floor = c->noise_floor;
	co->o.rules = co->rules;
	/* diff_cli__check parsed every rule and regex already. */
	for (; co->o.nrules < c->fail_on.n; co->o.nrules++)
		diff_rule__parse(c->fail_on.v[co->o.nrules], cli_parse_duration,
				 &co->rules[co->o.nrules], why, sizeof(why));
	if (c->function && !regcomp(&co->re, c->function, REG_EXTENDED | REG_NOSUB))
		co->o.function = &co->re;
}

void diff_cli__opts_free(struct diff_cli_opts *co)
{
	for (size_t i = 0; i < co->o.nrules; i++)
		diff_rule__free(co->rules[i]);
	if (co->o.function)
		regfree(&co->re);
}

int diff_cli__status(const struct diff_cli *c, int verdict)
{
	switch (verdict) {
	case DIFF_PASS:
		return EXIT_OK;
	case DIFF_FAIL:
		return 1;
	case DIFF_INCONCLUSIVE:
		return c->inconclusive;
	default:
		return EXIT_USAGE;
	}
}

int diff_cli__compare(const struct diff_cli *c, const char *cmd, char **const paths[2],
		      const size_t npaths[2], const struct diff_output *outs, size_t nouts,
		      bool log_findings)
{
	struct diff_cli_opts co;
	struct diff_compare cmp = {
		.opts = &co.o, .top = c->top, .cmd = cmd, .log_findings = log_findings
	};
	int rc;

	diff_cli__opts(c, &co);
	rc = diff_compare__run(&cmp, paths, npaths, NULL, outs, nouts);
	diff_cli__opts_free(&co);
	return diff_cli__status(c, rc);
}
