// SPDX-License-Identifier: MIT
/* compare.c: see compare.h. */
#include <stdio.h>

#include "diff/compare.h"
#include "diff/diff.h"
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
}

/* Reads, compares, prints; the verdict or -1. */
static int run(const struct diff_compare *c, struct diff *d, char **const paths[2],
	       const size_t npaths[2], const char *const *calls, const struct diff_output *outs,
	       size_t nouts)
{
	char err[1024];

	if (diff__read(d, paths, npaths, err, sizeof(err)) ||
	    (calls && diff__read_calls(d, calls, err, sizeof(err))) ||
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
	log_verdict(d, c->cmd, c->log_findings);
	return (int)diff__summary(d)->verdict;
}

int diff_compare__run(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
		      const char *const *calls, const struct diff_output *outs, size_t nouts)
{
	struct diff_opts o = *c->opts;
	struct diff *d = NULL;
	int rc;

	o.calls_elsewhere = calls != NULL;
	if (diff__new(&o, &d))
		fputs("sledtrace: out of memory\n", stderr);
	rc = d ? run(c, d, paths, npaths, calls, outs, nouts) : -1;
	diff__free(d);
	return rc;
}
