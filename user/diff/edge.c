// SPDX-License-Identifier: MIT
/* edge.c: see edge.h. */
#include <math.h>
#include <string.h>

#include "diff/edge.h"

void diff_edge__counts(const struct report_edge *e, double out[DIFF_NEDGE_METRICS])
{
	for (int m = 0; m < DIFF_NEDGE_METRICS; m++) {
		int k = diff_edge_metrics[m].cost;

		out[m] = (double)(k < 0 ? e->calls : e->cost_total[k]);
	}
}

static double pct(double change, double base)
{
	if (base)
		return 100 * change / base;
	return change > 0 ? INFINITY : change < 0 ? -INFINITY : 0;
}

void diff_edge__finish(struct diff_edge *e)
{
	bool changed = false;

	for (int m = 0; m < DIFF_NEDGE_METRICS; m++) {
		e->change[m] = e->v[DIFF_HEAD][m].median - e->v[DIFF_BASE][m].median;
		e->change_pct[m] = pct(e->change[m], e->v[DIFF_BASE][m].median);
		changed |= e->change[m] != 0;
	}
	e->status = !e->v[DIFF_BASE][DIFF_EDGE_M_CALLS].max   ? DIFF_NEW
		    : !e->v[DIFF_HEAD][DIFF_EDGE_M_CALLS].max ? DIFF_GONE
		    : changed				      ? DIFF_CHANGED
							      : DIFF_SAME;
}

static int cmp_abs_desc(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	return (a < b) - (a > b);
}

int diff_edge__cmp(const void *pa, const void *pb)
{
	const struct diff_edge *a = *(const struct diff_edge *const *)pa;
	const struct diff_edge *b = *(const struct diff_edge *const *)pb;
	int c = (b->fired != 0) - (a->fired != 0);

	if (!c)
		c = (b->unsure != 0) - (a->unsure != 0);
	for (int m = 0; m < DIFF_NEDGE_METRICS && !c; m++)
		c = cmp_abs_desc(a->change[m], b->change[m]);
	if (!c)
		c = strcmp(a->callee, b->callee);
	return c ? c : strcmp(a->caller, b->caller);
}
