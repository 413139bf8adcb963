// SPDX-License-Identifier: MIT
/* report_bmf.c: see report_bmf.h.  One trace is one measurement: each
 * measure is a value without bounds, since sums over the calls of one run
 * have no spread to give (min and max are of single calls, not of the
 * sums).  The times are of the kind --times says. */
#include <errno.h>

#include "analysis/report_bmf.h"
#include "analysis/report_int.h"
#include "format/bmf.h"
#include "model/frame_costs.h"

/* What record --costs counted of the row, the row's self counts (as its
 * calls are its own, and as the table shows them), written only when the
 * trace was recorded with costs, so that a trace without them does not
 * read as one that spent nothing.  A new kind is a line here and a slug
 * in format/bmf.h. */
static void cost_measures(const struct report *r, const struct row *row, struct bmf *b, long i)
{
	static const struct {
		enum bmf_measure m;
		enum cost_kind k;
	} kinds[] = {
		{ BMF_ALLOCS, COST_ALLOCS },
		{ BMF_ALLOC_BYTES, COST_ALLOC_BYTES },
		{ BMF_SYSCALLS, COST_SYSCALLS },
		{ BMF_PAGE_FAULTS, COST_PAGE_FAULTS },
	};

	if (!r->st.costs)
		return;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		bmf__set(b, i, kinds[k].m, (double)row->cost_self[kinds[k].k]);
}

/* The name a row's benchmark takes after its function's: the thread's or
 * process's name, as diff matches them (ids change between runs). */
static const char *group_name(const struct report *r, const struct row *row)
{
	const struct rgroup *g = report__group(r, row->group);

	if (r->o.by_thread)
		return g && g->name ? g->name : "?";
	if (r->o.by_process)
		return g && g->process ? g->process : "?";
	return NULL;
}

int report_bmf__print(const struct report *r, const struct row *const *rows, size_t n, FILE *f)
{
	/* On-CPU times equal total and self without switches: not repeated. */
	bool cpu = r->st.switches > 0;
	struct bmf b = { 0 };
	int err = 0;

	for (size_t k = 0; k < n && !err; k++) {
		const struct row *row = rows[k];
		long i = bmf__row(&b, report__name(r, row->fid), NULL, group_name(r, row));

		if (i < 0) {
			err = -ENOMEM;
			break;
		}
		bmf__set(&b, i, BMF_CALLS, (double)row->calls);
		bmf__set(&b, i, BMF_TOTAL_TIME, (double)row->total);
		bmf__set(&b, i, BMF_SELF_TIME, (double)row->self);
		if (cpu) {
			bmf__set(&b, i, BMF_CPU_TOTAL, (double)row->cpu_total);
			bmf__set(&b, i, BMF_CPU_SELF, (double)row->cpu_self);
		}
		cost_measures(r, row, &b, i);
	}
	if (!err)
		err = bmf__write(&b, f);
	bmf__free(&b);
	return err;
}
