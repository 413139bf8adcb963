// SPDX-License-Identifier: MIT
/* diff.c: the comparison behind `sledtrace diff`.  Each trace is read
 * through the one reader into a report (report.c does the per-function
 * aggregation); its rows are then folded into one entry per matched
 * function holding one sample per run, and the report is freed before
 * the next trace.  diff__finish turns the samples into medians and
 * spreads, changes, rule verdicts and the sort order. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diff.h"
#include "analysis/diff_read.h"
#include "analysis/diff_rules.h"
#include "analysis/report.h"
#include "util/u64map.h"

const char *const diff_metric_names[DIFF_NMETRICS] = { "calls", "total", "self", "avg" };
const char *const diff_status_names[4] = { "same", "changed", "new", "gone" };

struct sample {
	uint64_t calls, total, self;
};

struct entry {
	struct diff_row row;
	char *name, *object, *group;
	uint64_t hash;
	size_t next;		 /* 1 + index of the next entry with the same hash */
	struct sample samples[]; /* base runs, then head runs */
};

struct run {
	char *path;
	size_t slot; /* its sample in every entry */
	struct trace_stats st;
};

struct diff {
	struct diff_opts o;
	struct entry **entries;
	size_t nentries;
	struct u64map by_hash; /* key hash -> 1 + first entry index */
	struct run *runs[2];
	size_t nruns[2];
	size_t nsamples; /* samples per entry, grown as runs are added */
	struct diff_row **sorted;
};

/* ---- entries ---- */

static uint64_t hash_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (h ^ 0xff) * 0x100000001b3ULL; /* end marker: "ab","c" != "a","bc" */
}

static bool same_key(const struct entry *e, const char *name, const char *object, const char *group)
{
	return !strcmp(e->name, name) && !strcmp(e->object, object) &&
	       (!group ? !e->group : e->group && !strcmp(e->group, group));
}

static struct entry *new_entry(struct diff *d, const char *name, const char *object,
			       const char *group, uint64_t hash)
{
	size_t size = sizeof(struct entry) + d->nsamples * sizeof(struct sample);
	struct entry **v = realloc(d->entries, (d->nentries + 1) * sizeof(*v));
	struct entry *e;

	if (!v)
		return NULL;
	d->entries = v;
	if (!(e = calloc(1, size)))
		return NULL;
	e->hash = hash;
	if (!(e->name = strdup(name)) || !(e->object = strdup(object)) ||
	    (group && !(e->group = strdup(group)))) {
		free(e->name);
		free(e->object);
		free(e);
		return NULL;
	}
	v[d->nentries++] = e;
	return e;
}

/* A function is (name, object file name, thread or process name). */
static struct entry *entry_of(struct diff *d, const char *name, const char *object,
			      const char *group)
{
	uint64_t h = hash_str(hash_str(hash_str(0xcbf29ce484222325ULL, name), object),
			      group ? group : ""),
		 first;
	struct entry *e;
	size_t i;

	h += !h; /* 0 is not a u64map key */
	if (u64map__get(&d->by_hash, h, &first)) {
		for (i = first; i; i = d->entries[i - 1]->next)
			if (same_key(d->entries[i - 1], name, object, group))
				return d->entries[i - 1];
	}
	if (!(e = new_entry(d, name, object, group, h)))
		return NULL;
	e->next = u64map__get(&d->by_hash, h, &first) ? first : 0;
	if (u64map__put(&d->by_hash, h, d->nentries))
		return NULL;
	return e;
}

/* Each run adds one sample slot to every entry, so entries stay one
 * allocation: the number of runs is small, the number of entries is not
 * known before the traces are read. */
static int add_sample_slot(struct diff *d)
{
	size_t size = sizeof(struct entry) + (d->nsamples + 1) * sizeof(struct sample);

	for (size_t i = 0; i < d->nentries; i++) {
		struct entry *e = realloc(d->entries[i], size);

		if (!e)
			return -ENOMEM;
		e->samples[d->nsamples] = (struct sample){ 0 };
		d->entries[i] = e;
	}
	d->nsamples++;
	return 0;
}

static int fold_rows(struct diff *d, const struct diff_trace *t, size_t slot)
{
	const struct report *r = diff_trace__report(t);
	struct report_row row;

	for (size_t i = 0; i < report__nrows(r); i++) {
		const char *group = NULL;
		struct entry *e;

		report__row(r, i, &row);
		if (d->o.function && regexec(d->o.function, row.name, 0, NULL, 0))
			continue;
		if (d->o.group != DIFF_BY_FUNCTION)
			group = diff_trace__group(t, row.thread);
		if (!(e = entry_of(d, row.name, diff_trace__object(t, row.fid), group)))
			return -ENOMEM;
		e->samples[slot].calls += row.calls;
		e->samples[slot].total += row.total_ns;
		e->samples[slot].self += row.self_ns;
	}
	return 0;
}

static int add_run(struct diff *d, enum diff_side side, const char *path)
{
	struct run *v = realloc(d->runs[side], (d->nruns[side] + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	d->runs[side] = v;
	v[d->nruns[side]] = (struct run){ .path = strdup(path), .slot = d->nsamples };
	if (!v[d->nruns[side]].path)
		return -ENOMEM;
	d->nruns[side]++;
	return add_sample_slot(d);
}

static int fold_trace(struct diff *d, enum diff_side side, const char *path,
		      const struct diff_trace *t)
{
	int rc = add_run(d, side, path);

	if (rc)
		return rc;
	d->runs[side][d->nruns[side] - 1].st = *report__stats(diff_trace__report(t));
	return fold_rows(d, t, d->nsamples - 1);
}

/* Reads a batch of traces at once (the reader is single-threaded and its
 * decoding dominates), then folds them in order, so at most one report
 * per CPU is alive at a time. */
static int read_batch(struct diff *d, const enum diff_side *sides, char *const *paths, size_t n,
		      char *err, size_t errlen)
{
	struct diff_trace **t = calloc(n, sizeof(*t));
	int rc;

	if (!t)
		return -ENOMEM;
	rc = diff_trace__read_batch((const char *const *)paths, n, &d->o, t, err, errlen);
	for (size_t i = 0; i < n && !rc; i++)
		rc = fold_trace(d, sides[i], paths[i], t[i]);
	for (size_t i = 0; i < n; i++)
		diff_trace__free(t[i]);
	free(t);
	return rc;
}

int diff__read(struct diff *d, char **const paths[2], const size_t npaths[2], char *err,
	       size_t errlen)
{
	size_t n = npaths[0] + npaths[1], k = 0, batch = diff_trace__parallelism();
	enum diff_side *sides = malloc((n ? n : 1) * sizeof(*sides));
	char **all = malloc((n ? n : 1) * sizeof(*all));
	int rc = 0;

	if (!sides || !all)
		rc = -ENOMEM;
	for (int s = 0; s < 2 && !rc; s++) {
		for (size_t i = 0; i < npaths[s]; i++, k++) {
			sides[k] = (enum diff_side)s;
			all[k] = paths[s][i];
		}
	}
	for (size_t i = 0; i < n && !rc; i += batch)
		rc = read_batch(d, sides + i, all + i, n - i < batch ? n - i : batch, err, errlen);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(sides);
	free(all);
	return rc;
}

/* ---- statistics ---- */

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

static double median_of(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static struct diff_spread spread_of(double *x, size_t n)
{
	struct diff_spread s = { 0 };

	if (!n)
		return s;
	s.median = median_of(x, n);
	s.min = x[0];
	s.max = x[n - 1];
	for (size_t i = 0; i < n; i++)
		x[i] = fabs(x[i] - s.median);
	s.mad = median_of(x, n);
	return s;
}

static double metric_of(const struct sample *s, enum diff_metric m)
{
	switch (m) {
	case DIFF_CALLS:
		return (double)s->calls;
	case DIFF_TOTAL:
		return (double)s->total;
	case DIFF_SELF:
		return (double)s->self;
	default:
		return s->calls ? (double)s->total / (double)s->calls : 0;
	}
}

/* x has room for the side's runs.  Returns whether any run had a call. */
static bool side_stats(const struct diff *d, struct entry *e, enum diff_side side, double *x)
{
	size_t n, k = 0;

	for (int m = 0; m < DIFF_NMETRICS; m++) {
		n = 0;
		for (size_t i = 0; i < d->nruns[side]; i++) {
			const struct sample *s = &e->samples[d->runs[side][i].slot];

			if (m != DIFF_AVG || s->calls) /* avg of a run without calls: none */
				x[n++] = metric_of(s, (enum diff_metric)m);
		}
		e->row.v[side][m] = spread_of(x, n);
		if (m == DIFF_AVG)
			k = n;
	}
	e->row.calls_agree[side] = e->row.v[side][DIFF_CALLS].min == e->row.v[side][DIFF_CALLS].max;
	return k > 0;
}

static double noise(const struct diff_spread *s)
{
	return 3 * s->mad;
}

bool diff_row__significant(const struct diff_row *row, enum diff_metric m, uint64_t min_time_ns)
{
	double c = fabs(row->change[m]);

	if (m == DIFF_CALLS)
		return c > 0;
	return c > 0 && c >= (double)min_time_ns && c > noise(&row->v[DIFF_BASE][m]) &&
	       c > noise(&row->v[DIFF_HEAD][m]);
}

static enum diff_status status_of(const struct diff_row *r, bool in_base, bool in_head,
				  uint64_t min_time_ns)
{
	if (!in_base)
		return DIFF_NEW;
	if (!in_head)
		return DIFF_GONE;
	if (r->change[DIFF_CALLS])
		return DIFF_CHANGED;
	for (int m = DIFF_TOTAL; m <= DIFF_SELF; m++)
		if (fabs(r->change_pct[m]) >= 10 &&
		    diff_row__significant(r, (enum diff_metric)m, min_time_ns))
			return DIFF_CHANGED;
	return DIFF_SAME;
}

static void compare_entry(struct diff *d, struct entry *e, double *x)
{
	struct diff_row *r = &e->row;
	bool in_base = side_stats(d, e, DIFF_BASE, x), in_head = side_stats(d, e, DIFF_HEAD, x);

	r->name = e->name;
	r->object = e->object;
	r->group = e->group;
	for (int m = 0; m < DIFF_NMETRICS; m++) {
		double b = r->v[DIFF_BASE][m].median;

		r->change[m] = r->v[DIFF_HEAD][m].median - b;
		r->change_pct[m] = b		      ? 100 * r->change[m] / b
				   : r->change[m] > 0 ? INFINITY
				   : r->change[m] < 0 ? -INFINITY
						      : 0;
	}
	r->status = status_of(r, in_base, in_head, d->o.min_time_ns);
	for (size_t i = 0; i < d->o.nrules; i++)
		if (diff_rule__fires(d->o.rules[i], r, d->o.min_time_ns))
			r->fired |= 1ULL << i;
}

bool diff_row__matters(const struct diff_row *row)
{
	return row->fired || row->status != DIFF_SAME;
}

/* ---- order ---- */

static int cmp_abs_desc(double a, double b)
{
	a = fabs(a);
	b = fabs(b);
	return (a < b) - (a > b);
}

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct diff_row *a = *(const struct diff_row *const *)pa;
	const struct diff_row *b = *(const struct diff_row *const *)pb;
	enum diff_sort sort = *(const enum diff_sort *)ctx;
	int c = 0;

	if (sort == DIFF_SORT_IMPACT) {
		c = (b->fired != 0) - (a->fired != 0);
		if (!c)
			c = diff_row__matters(b) - diff_row__matters(a);
		if (!c)
			c = cmp_abs_desc(a->change[DIFF_SELF], b->change[DIFF_SELF]);
		if (!c)
			c = cmp_abs_desc(a->change[DIFF_CALLS], b->change[DIFF_CALLS]);
	} else if (sort != DIFF_SORT_NAME) {
		enum diff_metric m = (enum diff_metric)(sort - DIFF_SORT_CALLS);

		c = cmp_abs_desc(a->change[m], b->change[m]);
	}
	if (!c)
		c = strcmp(a->name, b->name);
	if (!c)
		c = strcmp(a->group ? a->group : "", b->group ? b->group : "");
	return c ? c : strcmp(a->object, b->object);
}

/* Names that more than one object has (on the same thread or process)
 * are shown with their object. */
static void mark_shared_names(struct diff *d)
{
	enum diff_sort by_name = DIFF_SORT_NAME;

	qsort_r(d->sorted, d->nentries, sizeof(*d->sorted), cmp_rows, &by_name);
	for (size_t i = 1; i < d->nentries; i++) {
		struct diff_row *a = d->sorted[i - 1], *b = d->sorted[i];

		if (!strcmp(a->name, b->name) &&
		    !strcmp(a->group ? a->group : "", b->group ? b->group : ""))
			a->shared_name = b->shared_name = true;
	}
}

int diff__finish(struct diff *d)
{
	size_t most = d->nruns[0] > d->nruns[1] ? d->nruns[0] : d->nruns[1];
	double *x = malloc((most ? most : 1) * sizeof(*x));

	free(d->sorted);
	d->sorted = malloc((d->nentries ? d->nentries : 1) * sizeof(*d->sorted));
	if (!x || !d->sorted) {
		free(x);
		return -ENOMEM;
	}
	for (size_t i = 0; i < d->nentries; i++) {
		compare_entry(d, d->entries[i], x);
		d->sorted[i] = &d->entries[i]->row;
	}
	free(x);
	mark_shared_names(d);
	qsort_r(d->sorted, d->nentries, sizeof(*d->sorted), cmp_rows, &d->o.sort);
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
	*out = d;
	return 0;
}

void diff__free(struct diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nentries; i++) {
		free(d->entries[i]->name);
		free(d->entries[i]->object);
		free(d->entries[i]->group);
		free(d->entries[i]);
	}
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < d->nruns[s]; i++)
			free(d->runs[s][i].path);
		free(d->runs[s]);
	}
	free(d->entries);
	free(d->sorted);
	u64map__clear(&d->by_hash);
	free(d);
}

const struct diff_opts *diff__opts(const struct diff *d)
{
	return &d->o;
}

size_t diff__nrows(const struct diff *d)
{
	return d->nentries;
}

const struct diff_row *diff__row(const struct diff *d, size_t i)
{
	return d->sorted[i];
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

uint64_t diff__fired(const struct diff *d)
{
	uint64_t bits = 0;

	for (size_t i = 0; i < d->nentries; i++)
		bits |= d->entries[i]->row.fired;
	return bits;
}
