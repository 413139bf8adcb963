// SPDX-License-Identifier: MIT
/* print_bmf.c: the head side of a comparison as Bencher Metric Format
 * (format/bmf.h), for `bench --bmf=FILE`: a benchmark per function the
 * head ran, each measure's value the median of the head's runs (what the
 * comparison judged), its lower and upper values the least and greatest
 * of those runs when there are two or more.  Bencher keeps the history
 * and its own thresholds; the base side is the history's previous point,
 * so it is not written.  Every function the comparison kept, whatever
 * --top shows (docs/exports.md, "bmf"). */
#include <errno.h>

#include "diff/print.h"
#include "format/bmf.h"

static void put(struct bmf *b, long i, enum bmf_measure m, const struct diff_spread *s, bool ranged)
{
	if (ranged)
		bmf__set_range(b, i, m, s->median, s->min, s->max);
	else
		bmf__set(b, i, m, s->median);
}

/* On-CPU time is the wall time in a run without switches: a median over
 * runs with and without them would mix the two, so it is written only
 * when every head run has them. */
static bool head_has_cpu(const struct diff *d)
{
	size_t n = diff__nruns(d, DIFF_HEAD);

	for (size_t k = 0; k < n; k++)
		if (!diff__stats(d, DIFF_HEAD, k)->switches)
			return false;
	return n > 0;
}

/* record --costs's counts, self, as report --format=bmf names them:
 * only when every head run has them (a run without is not one that
 * allocated nothing). */
static bool head_has_costs(const struct diff *d)
{
	size_t n = diff__nruns(d, DIFF_HEAD);

	for (size_t k = 0; k < n; k++)
		if (!diff__stats(d, DIFF_HEAD, k)->costs)
			return false;
	return n > 0;
}

static void put_costs(struct bmf *b, long i, const struct diff_spread *h, bool ranged)
{
	static const struct {
		enum bmf_measure m;
		enum diff_metric d;
	} kinds[] = {
		{ BMF_ALLOCS, DIFF_ALLOCS },
		{ BMF_ALLOC_BYTES, DIFF_ALLOC_BYTES },
		{ BMF_SYSCALLS, DIFF_SYSCALLS },
		{ BMF_PAGE_FAULTS, DIFF_PAGE_FAULTS },
	};

	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		put(b, i, kinds[k].m, &h[kinds[k].d], ranged);
}

int diff__print_bmf(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	bool cpu = head_has_cpu(d), costs = head_has_costs(d);
	bool ranged = diff__nruns(d, DIFF_HEAD) >= 2;
	/* bench --budget: calls from one run with every function probed, set
	 * over all runs: one count, no spread to give */
	bool calls_ranged = ranged && !diff__opts(d)->calls_elsewhere;
	struct bmf b = { 0 };
	int err = 0;

	(void)o;
	for (size_t k = 0; k < diff__nrows(d); k++) {
		const struct diff_row *r = diff__row(d, k);
		const struct diff_spread *h = r->v[DIFF_HEAD];
		long i;

		if (r->hidden || r->status == DIFF_GONE)
			continue;
		if ((i = bmf__row(&b, r->name, r->shared_name ? r->object : NULL, r->group)) < 0) {
			err = -ENOMEM;
			break;
		}
		put(&b, i, BMF_CALLS, &h[DIFF_CALLS], calls_ranged);
		/* counted in the run calls come from, probed or not */
		if (costs)
			put_costs(&b, i, h, calls_ranged);
		/* a budget left it unprobed in the timed runs: its time is in
		 * its callers', not 0 */
		if (r->unprobed)
			continue;
		put(&b, i, BMF_TOTAL_TIME, &h[DIFF_TOTAL], ranged);
		put(&b, i, BMF_SELF_TIME, &h[DIFF_SELF], ranged);
		if (cpu) {
			put(&b, i, BMF_CPU_TOTAL, &h[DIFF_CPU], ranged);
			put(&b, i, BMF_CPU_SELF, &h[DIFF_CPU_SELF], ranged);
		}
	}
	if (!err)
		err = bmf__write(&b, f);
	bmf__free(&b);
	return err;
}
