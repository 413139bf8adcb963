// SPDX-License-Identifier: MIT
/* diff.c: the comparison behind `sledtrace diff`.  Runs arrive one at a
 * time (read_traces.c streams each trace through report.c and hands over
 * its rows); each function and call path is an entry of a store with one
 * row of numbers per run.  diff__finish checks that the runs can be
 * compared at all, turns the numbers into per-metric values, medians and
 * changes, has judge_verdict.c judge them, and sorts. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/edge.h"
#include "diff/judge_verdict.h"
#include "diff/read_programs.h"
#include "diff/read_store.h"

const char *const diff_status_names[4] = { "same", "changed", "new", "gone" };
const char *const diff_verdict_names[3] = { "pass", "fail", "inconclusive" };

enum { KEY_NAME, KEY_OBJECT, KEY_GROUP };

struct run {
	char *path;
	size_t slot; /* its numbers in every store entry */
	struct trace_stats st;
	double total[DIFF_NSOURCES]; /* over every function, --function or not */
};

struct diff {
	struct diff_opts o;
	struct diff_store fns;	 /* name, object, group -> the sources */
	struct diff_store paths; /* caller, its object, callee, its object -> counts */
	struct diff_programs programs;
	struct run *runs[2];
	size_t nruns[2];
	enum diff_side last;
	struct diff_row *rows;
	struct diff_row **sorted; /* the rows --function keeps */
	size_t nshown;
	double *vals; /* every row's per-run values, by metric and side */
	struct diff_edge *edges;
	struct diff_edge **edges_sorted;
	double *totals[2];
	struct diff_summary sum;
};

/* ---- input ---- */

int diff__add_run(struct diff *d, enum diff_side side, const char *path,
		  const struct trace_stats *st)
{
	struct run *v = realloc(d->runs[side], (d->nruns[side] + 1) * sizeof(*v));
	size_t slot = d->fns.nslots;

	if (!v)
		return -ENOMEM;
	d->runs[side] = v;
	v[d->nruns[side]] = (struct run){ .path = strdup(path), .slot = slot, .st = *st };
	if (!v[d->nruns[side]].path)
		return -ENOMEM;
	d->nruns[side]++;
	d->last = side;
	if (diff_store__add_slot(&d->fns) || diff_store__add_slot(&d->paths) ||
	    diff_programs__add_run(&d->programs, side))
		return -ENOMEM;
	return 0;
}

static struct run *last_run(struct diff *d)
{
	return &d->runs[d->last][d->nruns[d->last] - 1];
}

/* Copies of one static inline function share name and file:line and are
 * told apart by address, "name (file.h:12)@0x4b2f0"; addresses change with
 * every build, so the copies are one function here.  buf has room for
 * name. */
static const char *match_name(const char *name, char *buf, size_t n)
{
	const char *at = strrchr(name, '@');
	size_t len = at ? (size_t)(at - name) : 0;

	if (!at || strncmp(at, "@0x", 3) || !at[3] ||
	    strspn(at + 3, "0123456789abcdef") != strlen(at + 3) || len >= n)
		return name;
	memcpy(buf, name, len);
	buf[len] = '\0';
	return buf;
}

int diff__add_function(struct diff *d, const char *name, const char *object, const char *group,
		       const struct report_row *row)
{
	struct run *run = last_run(d);
	char buf[4096];
	const char *keys[3] = { match_name(name, buf, sizeof(buf)), object, group };
	double *v, x[DIFF_NSOURCES];

	for (int s = 0; s < DIFF_NSOURCES; s++) {
		x[s] = (double)*(const uint64_t *)((const char *)row + diff_source_offsets[s]);
		run->total[s] += x[s];
	}
	if (!(v = diff_store__at(&d->fns, keys, run->slot)))
		return -ENOMEM;
	for (int s = 0; s < DIFF_NSOURCES; s++)
		v[s] += x[s];
	return 0;
}

int diff__add_object(struct diff *d, const char *object)
{
	return diff_programs__add_object(&d->programs, d->last, object);
}

/* A path belongs to its callee: --function keeps the paths into the
 * functions it keeps. */
int diff__add_edge(struct diff *d, const char *const ends[4], const struct report_edge *e)
{
	char caller[4096], callee[4096];
	const char *keys[4] = { match_name(ends[0], caller, sizeof(caller)), ends[1],
				match_name(ends[2], callee, sizeof(callee)), ends[3] };
	double *v, x[DIFF_NEDGE_METRICS];

	if (d->o.calls_elsewhere || (d->o.function && regexec(d->o.function, ends[2], 0, NULL, 0)))
		return 0;
	if (!(v = diff_store__at(&d->paths, keys, last_run(d)->slot)))
		return -ENOMEM;
	diff_edge__counts(e, x);
	for (int m = 0; m < DIFF_NEDGE_METRICS; m++)
		v[m] += x[m];
	return 0;
}

/* Adds x to column col of the entry keys in every run of side: rows of
 * one key add up (threads of one name under --by-thread, functions of one
 * name and object), as diff__add_function's do. */
static int add_all(struct diff *d, struct diff_store *st, enum diff_side side,
		   const char *const *keys, size_t col, double x)
{
	for (size_t k = 0; k < d->nruns[side]; k++) {
		double *v = diff_store__at(st, keys, d->runs[side][k].slot);

		if (!v)
			return -ENOMEM;
		v[col] += x;
	}
	return 0;
}

void diff__clear_counts(struct diff *d, enum diff_side side)
{
	for (size_t k = 0; k < d->nruns[side]; k++) {
		size_t slot = d->runs[side][k].slot;

		for (size_t i = 0; i < diff_store__n(&d->fns); i++) {
			double *v = diff_store__row(&d->fns, i, slot);

			for (int m = 0; m < DIFF_NMETRICS; m++)
				if (diff_metrics[m].kind == DIFF_KIND_COUNT)
					v[diff_metrics[m].num] = 0;
		}
		for (size_t i = 0; i < diff_store__n(&d->paths); i++)
			memset(diff_store__row(&d->paths, i, slot), 0,
			       DIFF_NEDGE_METRICS * sizeof(double));
	}
}

int diff__set_calls(struct diff *d, enum diff_side side, const char *name, const char *object,
		    const char *group, const struct report_row *row)
{
	char buf[4096];
	const char *keys[3] = { match_name(name, buf, sizeof(buf)), object, group };
	int rc = 0;

	/* the counts: calls, and the costs, which a budget would charge to
	 * the callers of the functions it left unprobed */
	for (int m = 0; m < DIFF_NMETRICS && !rc; m++) {
		enum diff_source src = diff_metrics[m].num;

		if (diff_metrics[m].kind == DIFF_KIND_COUNT)
			rc = add_all(d, &d->fns, side, keys, src,
				     (double)*(const uint64_t *)((const char *)row +
								 diff_source_offsets[src]));
	}
	return rc;
}

int diff__set_edge(struct diff *d, enum diff_side side, const char *const ends[4],
		   const struct report_edge *e)
{
	char caller[4096], callee[4096];
	const char *keys[4] = { match_name(ends[0], caller, sizeof(caller)), ends[1],
				match_name(ends[2], callee, sizeof(callee)), ends[3] };
	double x[DIFF_NEDGE_METRICS];
	int rc = 0;

	if (d->o.function && regexec(d->o.function, ends[2], 0, NULL, 0))
		return 0;
	diff_edge__counts(e, x);
	for (int m = 0; m < DIFF_NEDGE_METRICS && !rc; m++)
		rc = add_all(d, &d->paths, side, keys, (size_t)m, x[m]);
	return rc;
}

/* ---- rows ---- */

static double value_of(const double *src, enum diff_metric m)
{
	const struct diff_metric_def *def = &diff_metrics[m];

	if (def->den < 0)
		return src[def->num];
	return src[def->den] ? src[def->num] / src[def->den] : NAN;
}

static double pct(double change, double base)
{
	if (base)
		return 100 * change / base;
	return change > 0 ? INFINITY : change < 0 ? -INFINITY : 0;
}

/* Spread of the values that exist (avg: runs with calls). */
static struct diff_spread spread_of(const double *v, size_t n, double *x)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			x[k++] = v[i];
	return diff_stats__spread(x, k);
}

static bool any_calls(const struct diff *d, size_t i, enum diff_side s)
{
	for (size_t r = 0; r < d->nruns[s]; r++)
		if (diff_store__vals(&d->fns, i, d->runs[s][r].slot)[DIFF_SRC_CALLS] > 0)
			return true;
	return false;
}

/* Median over side's runs of the probes' share of entry i's raw total. */
static double probe_share(const struct diff *d, size_t i, enum diff_side side, double *x)
{
	size_t k = 0;

	for (size_t r = 0; r < d->nruns[side]; r++) {
		const double *v = diff_store__vals(&d->fns, i, d->runs[side][r].slot);
		double raw = v[DIFF_SRC_TOTAL] +
			     (d->o.times == REPORT_TIMES_COMPENSATED ? v[DIFF_SRC_PROBE] : 0);

		if (raw > 0)
			x[k++] = v[DIFF_SRC_PROBE] / raw;
	}
	return k ? diff_stats__median(x, k) : NAN;
}

/* Its calls or, with costs, what it spent: exact, so any change is one. */
static bool counts_changed(const struct diff_row *r)
{
	for (int m = 0; m < DIFF_NMETRICS; m++)
		if (diff_metrics[m].kind == DIFF_KIND_COUNT && r->change[m])
			return true;
	return false;
}

static void fill_row(struct diff *d, size_t i, double *vals, double *x)
{
	struct diff_row *r = &d->rows[i];
	size_t n = d->nruns[0] + d->nruns[1];

	r->name = diff_store__key(&d->fns, i, KEY_NAME);
	r->object = diff_store__key(&d->fns, i, KEY_OBJECT);
	r->group = diff_store__key(&d->fns, i, KEY_GROUP);
	r->hidden = d->o.function && regexec(d->o.function, r->name, 0, NULL, 0);
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		double *v = vals + (size_t)m * n;

		for (int s = 0; s < 2; s++) {
			for (size_t k = 0; k < d->nruns[s]; k++)
				v[k] = value_of(diff_store__vals(&d->fns, i, d->runs[s][k].slot),
						(enum diff_metric)m);
			r->runs[s][m] = v;
			r->v[s][m] = spread_of(v, d->nruns[s], x);
			v += d->nruns[s];
		}
		r->change[m] = r->v[DIFF_HEAD][m].median - r->v[DIFF_BASE][m].median;
		r->change_pct[m] = pct(r->change[m], r->v[DIFF_BASE][m].median);
	}
	for (int s = 0; s < 2; s++)
		r->calls_agree[s] = r->v[s][DIFF_CALLS].min == r->v[s][DIFF_CALLS].max;
	for (int s = 0; s < 2; s++)
		r->probe_share[s] = probe_share(d, i, (enum diff_side)s, x);
	r->unprobed = d->o.calls_elsewhere && !r->v[DIFF_BASE][DIFF_TOTAL].max &&
		      !r->v[DIFF_HEAD][DIFF_TOTAL].max &&
		      (r->v[DIFF_BASE][DIFF_CALLS].max || r->v[DIFF_HEAD][DIFF_CALLS].max);
	r->status = !any_calls(d, i, DIFF_BASE)	  ? DIFF_NEW
		    : !any_calls(d, i, DIFF_HEAD) ? DIFF_GONE
		    : counts_changed(r)		  ? DIFF_CHANGED
						  : DIFF_SAME;
}

/* x has room for twice the runs: values, then the spread's scratch. */
static void fill_edge(struct diff *d, size_t i, double *x)
{
	struct diff_edge *e = &d->edges[i];
	double *scratch = x + d->nruns[0] + d->nruns[1];

	e->caller = diff_store__key(&d->paths, i, 0);
	e->caller_object = diff_store__key(&d->paths, i, 1);
	e->callee = diff_store__key(&d->paths, i, 2);
	e->callee_object = diff_store__key(&d->paths, i, 3);
	for (int m = 0; m < DIFF_NEDGE_METRICS; m++)
		for (int s = 0; s < 2; s++) {
			for (size_t k = 0; k < d->nruns[s]; k++)
				x[k] = diff_store__vals(&d->paths, i, d->runs[s][k].slot)[m];
			e->v[s][m] = spread_of(x, d->nruns[s], scratch);
		}
	diff_edge__finish(e);
}

static int build_rows(struct diff *d)
{
	size_t n = d->nruns[0] + d->nruns[1], nf = diff_store__n(&d->fns);
	size_t ne = diff_store__n(&d->paths);
	double *x = malloc(2 * (n ? n : 1) * sizeof(*x));

	d->rows = calloc(nf ? nf : 1, sizeof(*d->rows));
	d->sorted = calloc(nf ? nf : 1, sizeof(*d->sorted));
	d->vals = malloc((nf ? nf : 1) * DIFF_NMETRICS * (n ? n : 1) * sizeof(*d->vals));
	d->edges = calloc(ne ? ne : 1, sizeof(*d->edges));
	d->edges_sorted = calloc(ne ? ne : 1, sizeof(*d->edges_sorted));
	if (!x || !d->rows || !d->sorted || !d->vals || !d->edges || !d->edges_sorted) {
		free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nf; i++) {
		fill_row(d, i, d->vals + i * DIFF_NMETRICS * n, x);
		if (!d->rows[i].hidden)
			d->sorted[d->nshown++] = &d->rows[i];
	}
	for (size_t i = 0; i < ne; i++) {
		fill_edge(d, i, x);
		d->edges_sorted[i] = &d->edges[i];
	}
	free(x);
	return 0;
}

/* ---- order ---- */

static int cmp_abs_desc(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	return (a < b) - (a > b);
}

static int rank(const struct diff_row *r)
{
	return r->fired ? 3 : r->unsure ? 2 : diff_row__matters(r) ? 1 : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct diff_row *a = *(const struct diff_row *const *)pa;
	const struct diff_row *b = *(const struct diff_row *const *)pb;
	enum diff_sort sort = *(const enum diff_sort *)ctx;
	int c = 0;

	if (sort == DIFF_SORT_IMPACT) {
		c = rank(b) - rank(a);
		if (!c)
			c = cmp_abs_desc(a->change[DIFF_SELF], b->change[DIFF_SELF]);
		if (!c)
			c = cmp_abs_desc(a->change[DIFF_CALLS], b->change[DIFF_CALLS]);
	} else if (sort != DIFF_SORT_NAME) {
		static const enum diff_metric by[] = {
			[DIFF_SORT_CALLS] = DIFF_CALLS, [DIFF_SORT_TOTAL] = DIFF_TOTAL,
			[DIFF_SORT_SELF] = DIFF_SELF,	[DIFF_SORT_AVG] = DIFF_AVG,
			[DIFF_SORT_CPU] = DIFF_CPU,	[DIFF_SORT_CPU_SELF] = DIFF_CPU_SELF,
		};

		c = cmp_abs_desc(a->change[by[sort]], b->change[by[sort]]);
	}
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->group ? a->group : "", b->group ? b->group : "");
	return c ? c : strcmp(a->object, b->object);
}

/* Names that more than one object has (on the same thread or process)
 * are shown with their object. */
static void mark_shared_names(struct diff *d, size_t n)
{
	enum diff_sort by_name = DIFF_SORT_NAME;

	qsort_r(d->sorted, n, sizeof(*d->sorted), cmp_rows, &by_name);
	for (size_t i = 1; i < n; i++) {
		struct diff_row *a = d->sorted[i - 1], *b = d->sorted[i];

		if (!strcmp(a->name, b->name) &&
		    !strcmp(a->group ? a->group : "", b->group ? b->group : ""))
			a->shared_name = b->shared_name = true;
	}
}

/* ---- finish ---- */

static int judge(struct diff *d)
{
	const char **lost = calloc(d->nruns[0] + d->nruns[1] + 1, sizeof(*lost));
	struct diff_judge j = { .o = &d->o,
				.rows = d->rows,
				.nrows = diff_store__n(&d->fns),
				.edges = d->edges,
				.nedges = diff_store__n(&d->paths),
				.nruns = { d->nruns[0], d->nruns[1] },
				.lost = lost };
	int rc;

	for (int s = 0; s < 2; s++) {
		if (!(d->totals[s] = malloc((d->nruns[s] + 1) * sizeof(d->runs[s]->total))))
			break;
		for (size_t k = 0; k < d->nruns[s]; k++) {
			const struct trace_stats *st = &d->runs[s][k].st;

			memcpy(d->totals[s] + k * DIFF_NSOURCES, d->runs[s][k].total,
			       sizeof(d->runs[s][k].total));
			if (lost &&
			    trace_stats__ring_lost(st) + st->unmatched_exits + st->coverage_gaps)
				lost[j.nlost++] = d->runs[s][k].path;
		}
		j.run_total[s] = d->totals[s];
	}
	rc = lost && d->totals[0] && d->totals[1] ? diff_verdict__judge(&j, &d->sum) : -ENOMEM;
	free(lost);
	return rc;
}

static int check_rows(const struct diff *d, char *err, size_t errlen)
{
	size_t n = diff_store__n(&d->fns), both = 0;

	for (size_t i = 0; i < n; i++)
		both += d->rows[i].status != DIFF_NEW && d->rows[i].status != DIFF_GONE;
	if (!d->nshown && d->o.function)
		return snprintf(err, errlen, "diff: --function matches no function of the traces"),
		       -EINVAL;
	if (!both)
		return snprintf(err, errlen,
				"diff: base and head have no function in common: traces of "
				"different programs?"),
		       -EINVAL;
	return 0;
}

int diff__finish(struct diff *d, char *err, size_t errlen)
{
	int rc;

	if ((rc = diff_programs__check(&d->programs, err, errlen)) || (rc = build_rows(d)) ||
	    (rc = check_rows(d, err, errlen)) || (rc = judge(d))) {
		if (rc == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		return rc;
	}
	mark_shared_names(d, d->nshown);
	qsort_r(d->sorted, d->nshown, sizeof(*d->sorted), cmp_rows, &d->o.sort);
	qsort(d->edges_sorted, diff_store__n(&d->paths), sizeof(*d->edges_sorted), diff_edge__cmp);
	return 0;
}

/* ---- lifecycle and access ---- */

int diff__new(const struct diff_opts *o, struct diff **out)
{
	struct diff *d;

	if (o->nrules > DIFF_MAX_RULES)
		return -E2BIG;
	if (!(d = calloc(1, sizeof(*d))))
		return -ENOMEM;
	d->o = *o;
	diff_store__init(&d->fns, 3, DIFF_NSOURCES);
	diff_store__init(&d->paths, 4, DIFF_NEDGE_METRICS);
	*out = d;
	return 0;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < d->nruns[s]; i++)
			free(d->runs[s][i].path);
		free(d->runs[s]);
		free(d->totals[s]);
	}
	diff_store__free(&d->fns);
	diff_store__free(&d->paths);
	diff_programs__free(&d->programs);
	diff_verdict__free(&d->sum);
	free(d->rows);
	free(d->sorted);
	free(d->vals);
	free(d->edges);
	free(d->edges_sorted);
	free(d);
}

const struct diff_opts *diff__opts(const struct diff *d)
{
	return &d->o;
}

const struct diff_summary *diff__summary(const struct diff *d)
{
	return &d->sum;
}

size_t diff__nrows(const struct diff *d)
{
	return d->nshown;
}

const struct diff_row *diff__row(const struct diff *d, size_t i)
{
	return d->sorted[i];
}

size_t diff__nedges(const struct diff *d)
{
	return diff_store__n(&d->paths);
}

const struct diff_edge *diff__edge(const struct diff *d, size_t i)
{
	return d->edges_sorted[i];
}

size_t diff__nruns(const struct diff *d, enum diff_side side)
{
	return d->nruns[side];
}

const char *diff__path(const struct diff *d, enum diff_side side, size_t run)
{
	return d->runs[side][run].path;
}

const struct trace_stats *diff__stats(const struct diff *d, enum diff_side side, size_t run)
{
	return &d->runs[side][run].st;
}

size_t diff__nobjects_only(const struct diff *d, enum diff_side side)
{
	return d->programs.nonly[side];
}

const char *diff__object_only(const struct diff *d, enum diff_side side, size_t i)
{
	return d->programs.only[side][i];
}

bool diff_row__matters(const struct diff_row *row)
{
	return row->fired || row->unsure || row->status != DIFF_SAME;
}

uint64_t diff__fired(const struct diff *d)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < diff__nrows(d); i++)
		bits |= d->rows[i].fired;
	for (size_t i = 0; i < diff__nedges(d); i++)
		bits |= d->edges[i].fired;
	return bits;
}

uint64_t diff__unsure(const struct diff *d)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < diff__nrows(d); i++)
		bits |= d->rows[i].unsure;
	for (size_t i = 0; i < diff__nedges(d); i++)
		bits |= d->edges[i].unsure;
	return bits;
}
