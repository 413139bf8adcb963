// SPDX-License-Identifier: MIT
/* report_print.c: prints what report.c aggregated: the per-function (or
 * per thread/process) table or the callers/callees of one function, as a
 * terminal table or TSV, CSV, JSON (or BMF, report_bmf.c).  Every format
 * but BMF (Bencher's benchmarks: numbers only) carries the trace's stats.
 * The column sets are a stable interface (docs/exports.md): new columns go
 * at the end. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_bmf.h"
#include "analysis/report_costs.h"
#include "analysis/report_int.h"
#include "format/text_out.h"
#include "model/trace_stats.h"

/* Values shown per argument. */
#define VALUES_TOP 5

#define MIN_NAME 24

/* The table's columns (below). */
#define NTCOLS 18

/* A row whose raw total is at least this share probe cost shows its times
 * marked (TIME_MARK), with a footer saying how to get real ones. */
#define MOSTLY_PROBES 0.5
#define TIME_MARK "~"

struct pr {
	struct report *r;
	FILE *f;
	uint64_t self_sum;
	bool shown[NTCOLS]; /* the table's columns that fit */
	size_t name_max;    /* the table's room for names; 0: no limit */
	size_t marked;	    /* table rows shown marked */
};

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* total / calls: what the row's columns add up to (report.c). */
static uint64_t avg_of(const struct row *row)
{
	return row->calls ? row->total / row->calls : 0;
}

/* The share of the row's raw time that is probe cost (an estimate): of
 * its raw on-CPU total when the trace has switches (a probe runs on the
 * CPU; time spent preempted would hide it), else of its raw total. */
static double probe_share_of(const struct report *r, const struct row *row)
{
	bool comp = r->o.times == REPORT_TIMES_COMPENSATED, cpu = r->st.switches > 0;
	uint64_t probe = cpu ? row->cpu_probe : row->probe;
	uint64_t raw = (cpu ? row->cpu_total : row->total) + (comp ? probe : 0);

	return raw ? (double)probe / (double)raw : 0;
}

/* Self time off the CPU: waiting for it, sleeping, blocked.  Per call
 * the on-CPU self time is at most the self time, in either kind. */
static uint64_t wait_of(const struct row *row)
{
	return row->self > row->cpu_self ? row->self - row->cpu_self : 0;
}

static uint64_t key_calls(const struct row *row)
{
	return row->calls;
}

static uint64_t key_total(const struct row *row)
{
	return row->total;
}

static uint64_t key_self(const struct row *row)
{
	return row->self;
}

static uint64_t key_max(const struct row *row)
{
	return row->max;
}

static uint64_t key_cpu(const struct row *row)
{
	return row->cpu_total;
}

static uint64_t key_cpu_self(const struct row *row)
{
	return row->cpu_self;
}

/* What each --sort orders by, largest first; name has no number. */
static uint64_t (*const sort_keys[])(const struct row *) = {
	[REPORT_SORT_CALLS] = key_calls, [REPORT_SORT_TOTAL] = key_total,
	[REPORT_SORT_SELF] = key_self,	 [REPORT_SORT_NAME] = NULL,
	[REPORT_SORT_AVG] = avg_of,	 [REPORT_SORT_MAX] = key_max,
	[REPORT_SORT_CPU] = key_cpu,	 [REPORT_SORT_CPU_SELF] = key_cpu_self,
	[REPORT_SORT_WAIT] = wait_of,
};

static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const struct report *r = ctx;
	const struct row *a = *(const struct row *const *)pa, *b = *(const struct row *const *)pb;
	uint64_t (*key)(const struct row *) = sort_keys[r->o.sort];
	int c = key ? cmp_u64_desc(key(a), key(b)) : 0;

	if (!c)
		c = strcmp(report__name(r, a->fid), report__name(r, b->fid));
	if (!c && r->o.by_thread) {
		uint32_t ta = report__group(r, a->group) ? report__group(r, a->group)->tid : 0;
		uint32_t tb = report__group(r, b->group) ? report__group(r, b->group)->tid : 0;

		c = (ta > tb) - (ta < tb);
	}
	return c ? c : (a->group > b->group) - (a->group < b->group);
}

/* s, or its head and tail around "..." when longer than max. */
static void put_elided(FILE *f, const char *s, size_t max, int pad)
{
	size_t n = strlen(s), head;

	if (!max || n <= max) {
		fprintf(f, "%-*s", pad, s);
		return;
	}
	head = (max - 3 + 1) / 2;
	fprintf(f, "%.*s...%s", (int)head, s, s + n - (max - 3 - head));
	if (pad > (int)max)
		fprintf(f, "%*s", pad - (int)max, "");
}

/* A row's figures as the table and the other formats print them. */
struct cols {
	uint64_t calls, total, self, cpu, cpu_self, wait;
	uint64_t min, avg, p50, p99, max;
	double share;
	double probe; /* share of the raw total that is probe cost */
	uint64_t allocs, alloc_bytes, syscalls, faults, vcsw; /* record --costs, self */
};

static struct cols cols_of(const struct pr *p, const struct row *row)
{
	struct cols c = { .calls = row->calls,
			  .total = row->total,
			  .self = row->self,
			  .cpu = row->cpu_total,
			  .cpu_self = row->cpu_self,
			  .wait = wait_of(row),
			  .avg = avg_of(row),
			  .max = row->max,
			  .allocs = row->cost_self[COST_ALLOCS],
			  .alloc_bytes = row->cost_self[COST_ALLOC_BYTES],
			  .syscalls = row->cost_self[COST_SYSCALLS],
			  .faults = row->cost_self[COST_PAGE_FAULTS],
			  .vcsw = row->cost_self[COST_VOLUNTARY_SWITCHES] };

	c.min = row->measured ? row->min : 0;
	if (row->hist) {
		c.p50 = histogram__quantile(row->hist, row->measured, 0.50, c.min, c.max);
		c.p99 = histogram__quantile(row->hist, row->measured, 0.99, c.min, c.max);
	}
	c.share = p->self_sum ? (double)row->self / (double)p->self_sum : 0;
	c.probe = probe_share_of(p->r, row);
	return c;
}

/* ---- table ---- */

static unsigned group_width(const struct report *r)
{
	return r->o.by_thread || r->o.by_process ? 9 + 17 : 0;
}

enum tkind { T_COUNT, T_NS, T_SHARE, T_PERCENT };

/* What a column needs of the trace to show: on-CPU columns show in a
 * trace with scheduler switches only (without them on-CPU times equal
 * total and self, which they would repeat), cost columns (self counts) in
 * one recorded with --costs. */
enum tneeds { T_ALWAYS, T_SCHED, T_COSTS };

/* A column of the table, right-aligned, one space after the one before:
 * a figure of struct cols, shown when the trace has what it needs.  On a
 * narrow terminal columns are left out in their
 * drop order (1 first) until the table fits with room for names; 0: never
 * left out. */
struct tcol {
	const char *title;
	int width;
	enum tkind kind;
	size_t at; /* offsetof(struct cols, ...): a uint64_t, or share */
	enum tneeds needs;
	int drop;
};

#define TCOL(title, width, kind, field, needs, drop)                          \
	{                                                                     \
		title, width, kind, offsetof(struct cols, field), needs, drop \
	}

static const struct tcol tcols[NTCOLS] = {
	TCOL("CALLS", 10, T_COUNT, calls, T_ALWAYS, 0),
	TCOL("TOTAL", 10, T_NS, total, T_ALWAYS, 0),
	TCOL("SELF", 10, T_NS, self, T_ALWAYS, 0),
	TCOL("CPU", 10, T_NS, cpu, T_SCHED, 5),
	TCOL("CPU-SELF", 10, T_NS, cpu_self, T_SCHED, 0),
	TCOL("WAIT", 10, T_NS, wait, T_SCHED, 0),
	TCOL("MIN", 9, T_NS, min, T_ALWAYS, 2),
	TCOL("AVG", 9, T_NS, avg, T_ALWAYS, 6),
	TCOL("P50", 9, T_NS, p50, T_ALWAYS, 1),
	TCOL("P99", 9, T_NS, p99, T_ALWAYS, 3),
	TCOL("MAX", 9, T_NS, max, T_ALWAYS, 4),
	TCOL("SHARE", 6, T_SHARE, share, T_ALWAYS, 0),
	TCOL("PROBE", 5, T_PERCENT, probe, T_ALWAYS, 0),
	TCOL("ALLOCS", 8, T_COUNT, allocs, T_COSTS, 0),
	TCOL("BYTES", 10, T_COUNT, alloc_bytes, T_COSTS, 7),
	TCOL("SYSCALLS", 8, T_COUNT, syscalls, T_COSTS, 0),
	TCOL("FAULTS", 7, T_COUNT, faults, T_COSTS, 0),
	TCOL("VCSW", 6, T_COUNT, vcsw, T_COSTS, 8),
};
#undef TCOL

/* The columns' width with the group's, and the two spaces before names. */
static size_t table_used(const struct pr *p)
{
	size_t used = group_width(p->r) + 2;

	for (int i = 0; i < NTCOLS; i++)
		used += p->shown[i] ? (size_t)tcols[i].width + (i > 0) : 0;
	return used;
}

/* Which columns fit the terminal with MIN_NAME for names, and the room
 * names get. */
static void table_fit(struct pr *p)
{
	const struct report *r = p->r;
	size_t used;

	for (int i = 0; i < NTCOLS; i++)
		p->shown[i] = tcols[i].needs == T_ALWAYS ||
			      (tcols[i].needs == T_SCHED && r->st.switches > 0) ||
			      (tcols[i].needs == T_COSTS && r->st.costs);
	while (r->o.width && (used = table_used(p)) + MIN_NAME > r->o.width) {
		int next = -1;

		for (int i = 0; i < NTCOLS; i++)
			if (p->shown[i] && tcols[i].drop &&
			    (next < 0 || tcols[i].drop < tcols[next].drop))
				next = i;
		if (next < 0)
			break;
		p->shown[next] = false;
	}
	used = table_used(p);
	p->name_max = !r->o.width ? 0 : r->o.width > used + MIN_NAME ? r->o.width - used : MIN_NAME;
}

static void table_header(struct pr *p)
{
	const struct report *r = p->r;

	table_fit(p);
	report__put_times(r, p->f);
	if (r->o.by_thread)
		fprintf(p->f, "%8s %-16s ", "TID", "THREAD");
	else if (r->o.by_process)
		fprintf(p->f, "%8s %-16s ", "PID", "PROCESS");
	for (int i = 0; i < NTCOLS; i++)
		if (p->shown[i])
			fprintf(p->f, "%s%*s", i ? " " : "", tcols[i].width, tcols[i].title);
	fprintf(p->f, "  %s\n", "FUNCTION");
}

/* marked: the row's times are mostly probe cost. */
static void table_cell(const struct pr *p, const struct tcol *t, const struct cols *c, bool marked)
{
	const void *v = (const char *)c + t->at;
	char b[32], m[40];

	if (t->kind == T_COUNT)
		fprintf(p->f, "%*" PRIu64, t->width, *(const uint64_t *)v);
	else if (t->kind == T_NS) {
		text_out__ns(b, sizeof(b), *(const uint64_t *)v, "");
		snprintf(m, sizeof(m), "%s%s", marked ? TIME_MARK : "", b);
		fprintf(p->f, "%*s", t->width, m);
	} else if (t->kind == T_PERCENT)
		fprintf(p->f, "%*.0f%%", t->width - 1, 100.0 * *(const double *)v);
	else
		fprintf(p->f, "%*.1f%%", t->width - 1, 100.0 * *(const double *)v);
}

static void table_row(struct pr *p, const struct row *row)
{
	const struct report *r = p->r;
	struct cols c = cols_of(p, row);
	bool marked = c.probe >= MOSTLY_PROBES;

	if (r->o.by_thread || r->o.by_process) {
		const struct rgroup *g = report__group(r, row->group);

		fprintf(p->f, "%8" PRIu32 " ", g ? (r->o.by_thread ? g->tid : g->pid) : 0);
		put_elided(p->f, g ? (r->o.by_thread ? g->name : g->process) : "?", 16, 16);
		fputc(' ', p->f);
	}
	for (int i = 0; i < NTCOLS; i++) {
		if (!p->shown[i])
			continue;
		if (i)
			fputc(' ', p->f);
		table_cell(p, &tcols[i], &c, marked);
	}
	p->marked += marked;
	fputs("  ", p->f);
	put_elided(p->f, report__name(r, row->fid), p->name_max, 0);
	fputc('\n', p->f);
}

/* ---- TSV and CSV ---- */

static void put_field(const struct pr *p, const char *s)
{
	if (p->r->o.format == REPORT_TSV)
		text_out__tsv(p->f, s);
	else
		text_out__csv(p->f, s);
}

/* New columns go at the end (docs/exports.md). */
static const char *const flat_cols[] = {
	"tid",	  "function",	  "calls",	 "total_ns", "self_ns",	 "min_ns",	  "avg_ns",
	"p50_ns", "p99_ns",	  "max_ns",	 "share",    "pid",	 "thread",	  "process",
	"elided", "cpu_total_ns", "cpu_self_ns", "values",   "probe_ns", "probe_self_ns",
};

static void flat_header(const struct pr *p)
{
	char sep = p->r->o.format == REPORT_TSV ? '\t' : ',';

	for (size_t i = 0; i < sizeof(flat_cols) / sizeof(flat_cols[0]); i++)
		fprintf(p->f, "%s%s", i ? (char[]){ sep, 0 } : "", flat_cols[i]);
	if (p->r->st.costs)
		report_costs__flat_header(p->f, sep);
	fputc('\n', p->f);
}

/* record --capture's most frequent values of fid, as the table shows
 * them after its rows; empty without values. */
static void put_values_cell(const struct pr *p, uint32_t fid)
{
	char *text = report_values__text(&p->r->values, fid, VALUES_TOP);

	put_field(p, text ? text : "");
	free(text);
}

static void flat_row(const struct pr *p, const struct row *row)
{
	const struct report *r = p->r;
	const struct rgroup *g = report__group(r, row->group);
	struct cols c = cols_of(p, row);
	char sep = r->o.format == REPORT_TSV ? '\t' : ',', tid[16] = "*", pid[16] = "*";

	if (r->o.by_thread && g)
		snprintf(tid, sizeof(tid), "%" PRIu32, g->tid);
	if (g)
		snprintf(pid, sizeof(pid), "%" PRIu32, g->pid);
	fprintf(p->f, "%s%c", tid, sep);
	put_field(p, report__name(r, row->fid));
	fprintf(p->f,
		"%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64
		"%c%" PRIu64 "%c%" PRIu64 "%c%.6f%c%s%c",
		sep, row->calls, sep, row->total, sep, row->self, sep, c.min, sep, c.avg, sep,
		c.p50, sep, c.p99, sep, c.max, sep, c.share, sep, pid, sep);
	put_field(p, g && r->o.by_thread ? g->name : "");
	fputc(sep, p->f);
	put_field(p, g ? g->process : "");
	fprintf(p->f, "%c%" PRIu64 "%c%" PRIu64 "%c%" PRIu64 "%c", sep, row->elided, sep,
		row->cpu_total, sep, row->cpu_self, sep);
	put_values_cell(p, row->fid);
	fprintf(p->f, "%c%" PRIu64 "%c%" PRIu64, sep, row->probe, sep, row->probe_self);
	if (r->st.costs)
		report_costs__flat_row(row, p->f, sep);
	fputc('\n', p->f);
}

/* ---- JSON ---- */

static void json_row(const struct pr *p, const struct row *row, bool first)
{
	const struct report *r = p->r;
	const struct rgroup *g = report__group(r, row->group);
	struct cols c = cols_of(p, row);

	fputs(first ? "\n{\"function\":" : ",\n{\"function\":", p->f);
	text_out__json(p->f, report__name(r, row->fid));
	fprintf(p->f,
		",\"calls\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"self_ns\":%" PRIu64
		",\"min_ns\":%" PRIu64 ",\"avg_ns\":%" PRIu64 ",\"p50_ns\":%" PRIu64
		",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ",\"share\":%.6f",
		row->calls, row->total, row->self, c.min, c.avg, c.p50, c.p99, c.max, c.share);
	fprintf(p->f,
		",\"elided\":%" PRIu64 ",\"cpu_total_ns\":%" PRIu64 ",\"cpu_self_ns\":%" PRIu64
		",\"probe_ns\":%" PRIu64 ",\"probe_self_ns\":%" PRIu64,
		row->elided, row->cpu_total, row->cpu_self, row->probe, row->probe_self);
	if (r->st.costs)
		report_costs__json(row, p->f);
	if (r->o.by_thread && g)
		fprintf(p->f, ",\"tid\":%" PRIu32, g->tid);
	if (g) {
		fprintf(p->f, ",\"pid\":%" PRIu32, g->pid);
		if (r->o.by_thread) {
			fputs(",\"thread\":", p->f);
			text_out__json(p->f, g->name);
		}
		fputs(",\"process\":", p->f);
		text_out__json(p->f, g->process);
	}
	if (report_values__has(&r->values, row->fid)) {
		fputs(",\"values\":", p->f);
		report_values__json(&p->r->values, row->fid, p->f);
	}
	fputc('}', p->f);
}

static const char *group_word(const struct report *r)
{
	return r->o.by_thread ? "thread" : r->o.by_process ? "process" : "function";
}

/* ---- rows ---- */

static int print_rows(struct pr *p)
{
	struct report *r = p->r;
	const struct row **v = malloc((r->nrows ? r->nrows : 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < r->nrows; i++) {
		p->self_sum += r->rows[i].self;
		if (!r->have_re || !regexec(&r->re, report__name(r, r->rows[i].fid), 0, NULL, 0))
			v[n++] = &r->rows[i];
	}
	qsort_r(v, n, sizeof(*v), cmp_rows, r);
	if (r->o.top && r->o.top < n)
		n = r->o.top;
	if (r->o.format == REPORT_BMF) {
		int err = report_bmf__print(r, v, n, p->f);

		free(v);
		return err;
	}
	if (r->o.format == REPORT_JSON)
		fprintf(p->f,
			"{\"schema\":\"sledtrace.report/1\",\"group\":\"%s\",\"times\":\"%s\","
			"\"probe_share\":%.6f,\"rows\":[",
			group_word(r), report__times_name(r->o.times), report__probe_share(r));
	else if (r->o.format == REPORT_TABLE)
		table_header(p);
	else
		flat_header(p);
	for (size_t i = 0; i < n; i++) {
		if (r->o.format == REPORT_JSON)
			json_row(p, v[i], i == 0);
		else if (r->o.format == REPORT_TABLE)
			table_row(p, v[i]);
		else
			flat_row(p, v[i]);
	}
	if (r->o.format == REPORT_TABLE && p->marked)
		fprintf(p->f,
			"%s %zu/%zu rows mostly probe cost; record --budget=5%%: real times, exact counts\n",
			TIME_MARK, p->marked, n);
	if (r->o.format == REPORT_JSON) {
		fputs("\n],", p->f);
		report__put_stats(r, p->f);
		fputs("}\n", p->f);
	} else {
		report__put_stats(r, p->f);
	}
	free(v);
	return 0;
}

/* The most frequent captured values (record --capture) of the functions a
 * table is about: those --function picks, or the one --callers/--callees
 * names.  The other formats carry them in their rows (a `values` column,
 * a "values" member). */
static void print_values(struct report *r, FILE *f)
{
	const char *one = r->o.callers ? r->o.callers : r->o.callees;

	if (r->o.format != REPORT_TABLE || (!one && !r->have_re))
		return;
	for (uint32_t fid = 1; fid < r->nnames; fid++) {
		const char *name = report__name(r, fid);

		if (!report_values__has(&r->values, fid))
			continue;
		if (one ? !strcmp(name, one) : !regexec(&r->re, name, 0, NULL, 0))
			report_values__print(&r->values, fid, name, VALUES_TOP, f);
	}
}

int report__print(struct report *r, FILE *f)
{
	struct pr p = { .r = r, .f = f };
	int err = r->o.syscalls			 ? report_costs__print_syscalls(r, f)
		  : r->o.callers || r->o.callees ? report_edges__print(r, f)
						 : print_rows(&p);

	if (err)
		return err;
	print_values(r, f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}
