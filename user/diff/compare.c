// SPDX-License-Identifier: MIT
/* compare.c: see compare.h. */
#include <stdio.h>
#include <string.h>

#include "diff/compare.h"
#include "diff/diff.h"
#include "diff/judge_rules.h"
#include "diff/print_format.h"
#include "diff/print_text.h"
#include "diff/read_traces.h"

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
	/* bench can record them itself */
	if (!strcmp(cmd, "bench") && s->runs_needed && !diff__opts(d)->first_look_runs)
		fprintf(stderr,
			"%s--max-runs=%u records more runs when the first ones cannot decide\n",
			prefix, s->runs_needed);
}

/* A trace recorded without --costs has no counts of them, not counts of
 * 0: a rule on one would compare nothing with something.  Bench records
 * its runs itself, so its line says which option it lacked. */
static int check_costs(const struct diff_compare *c, const struct diff *d)
{
	const struct diff_opts *o = diff__opts(d);

	for (size_t k = 0; k < o->nrules; k++) {
		int m = diff_rule__metric(o->rules[k]);

		if (!diff_metric__costs(m))
			continue;
		for (int s = 0; s < 2; s++)
			for (size_t i = 0; i < diff__nruns(d, (enum diff_side)s); i++)
				if (!diff__stats(d, (enum diff_side)s, i)->costs)
					return fprintf(stderr,
						       "sledtrace: %s: --fail-on '%s' needs %s: %s was "
						       "recorded without --costs\n",
						       c->cmd, diff_rule__text(o->rules[k]),
						       !strcmp(c->cmd, "bench")
							       ? "--record-opt=--costs"
							       : "traces recorded with --costs",
						       diff__path(d, (enum diff_side)s, i)),
					       -1;
	}
	return 0;
}

/* Reads, compares, prints; the verdict or -1.  A look that only judges
 * prints nothing, not even its findings on stderr: only an error. */
static int run(const struct diff_compare *c, struct diff *d, char **const paths[2],
	       const size_t npaths[2], const char *const *calls, const struct diff_output *outs,
	       size_t nouts, bool judge_only)
{
	char err[1024];

	if (diff__read(d, paths, npaths, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: %s\n", err);
		return -1;
	}
	if (check_costs(c, d))
		return -1;
	if ((calls && diff__read_calls(d, calls, err, sizeof(err))) ||
	    diff__finish(d, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: %s\n", err);
		return -1;
	}
	for (size_t i = 0; i < nouts; i++) {
		struct diff_print_opts p = { .format = outs[i].format,
					     .top = c->top,
					     .width = outs[i].width };

		if (diff__print(d, &p, outs[i].f)) {
			fprintf(stderr, "sledtrace: %s: cannot write %s\n", c->cmd, outs[i].name);
			return -1;
		}
	}
	if (!judge_only)
		log_verdict(d, c->cmd, c->log_findings);
	return (int)diff__summary(d)->verdict;
}

/* The runs per side that would decide what the comparison left open: the
 * inconclusive rules, and the functions a pass does not clear (0: none,
 * or more than 99). */
static unsigned runs_to_decide(const struct diff *d)
{
	const struct diff_summary *s = diff__summary(d);
	unsigned need = s->verdict == DIFF_INCONCLUSIVE ? s->runs_needed : 0;

	for (size_t k = 0; k < diff__opts(d)->nrules; k++)
		if (s->uncleared[k].functions && s->uncleared[k].runs_to_see > need)
			need = s->uncleared[k].runs_to_see;
	return need;
}

static int compare(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
		   const char *const *calls, const struct diff_output *outs, size_t nouts,
		   unsigned *runs_needed)
{
	struct diff_opts o = *c->opts;
	struct diff *d = NULL;
	int rc;

	o.calls_elsewhere = calls != NULL;
	if (diff__new(&o, &d))
		fputs("sledtrace: out of memory\n", stderr);
	rc = d ? run(c, d, paths, npaths, calls, outs, nouts, runs_needed != NULL) : -1;
	if (rc >= 0 && runs_needed)
		*runs_needed = runs_to_decide(d);
	diff__free(d);
	return rc;
}

int diff_compare__run(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
		      const char *const *calls, const struct diff_output *outs, size_t nouts)
{
	return compare(c, paths, npaths, calls, outs, nouts, NULL);
}

int diff_compare__judge(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
			const char *const *calls, unsigned *runs_needed)
{
	return compare(c, paths, npaths, calls, NULL, 0, runs_needed);
}
