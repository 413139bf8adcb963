/* SPDX-License-Identifier: MIT */
/* judge.h: what diff.c hands to the statistics and the verdict
 * (estimate_shift.c, estimate_change.c, judge_verdict.c): the rows, the call
 * paths, the runs.  Types and small accessors only. */
#ifndef SLEDTRACE_DIFF_JUDGE_H
#define SLEDTRACE_DIFF_JUDGE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "diff/row.h"

struct diff_judge {
	const struct diff_opts *o;
	struct diff_row *rows;
	size_t nrows;
	struct diff_edge *edges;
	size_t nedges;
	size_t nruns[2];
	/* Each run's sum of every source over its functions, DIFF_NSOURCES a
	 * run (diff_metric__basis). */
	const double *run_total[2];
	const char *const *lost; /* runs that lost events (their paths) */
	size_t nlost;
};

/* Runs as one array, base runs first. */
static inline size_t diff_judge__nall(const struct diff_judge *j)
{
	return j->nruns[DIFF_BASE] + j->nruns[DIFF_HEAD];
}

static inline double diff_judge__value(const struct diff_judge *j, const struct diff_row *r,
				       enum diff_metric m, size_t k)
{
	size_t nb = j->nruns[DIFF_BASE];

	return k < nb ? r->runs[DIFF_BASE][m][k] : r->runs[DIFF_HEAD][m][k - nb];
}

/* Run k's total of source src. */
static inline double diff_judge__total(const struct diff_judge *j, size_t k, enum diff_source src)
{
	size_t nb = j->nruns[DIFF_BASE];

	return k < nb ? j->run_total[DIFF_BASE][k * DIFF_NSOURCES + src]
		      : j->run_total[DIFF_HEAD][(k - nb) * DIFF_NSOURCES + src];
}

/* Every run has a positive, finite value of m. */
static inline bool diff_judge__positive(const struct diff_judge *j, const struct diff_row *r,
					enum diff_metric m)
{
	for (size_t k = 0; k < diff_judge__nall(j); k++) {
		double v = diff_judge__value(j, r, m, k);

		if (!(v > 0) || !isfinite(v))
			return false;
	}
	return true;
}

#endif
