// SPDX-License-Identifier: MIT
/* report_costs.c: see report_costs.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_costs.h"
#include "arch/syscall_names.h"
#include "format/text_out.h"

void report_costs__flat_header(FILE *f, char sep)
{
	for (int k = 0; k < COST_NKINDS; k++)
		fprintf(f, "%c%s", sep, cost_names[k]);
	for (int k = 0; k < COST_NKINDS; k++)
		fprintf(f, "%c%s_total", sep, cost_names[k]);
}

void report_costs__flat_row(const struct row *row, FILE *f, char sep)
{
	for (int k = 0; k < COST_NKINDS; k++)
		fprintf(f, "%c%" PRIu64, sep, row->cost_self[k]);
	for (int k = 0; k < COST_NKINDS; k++)
		fprintf(f, "%c%" PRIu64, sep, row->cost_total[k]);
}

/* A system call's name, or nr_N for one the headers did not name. */
static const char *name_of(uint32_t nr, char *b, size_t n)
{
	const char *s = syscall_name(nr);

	if (s)
		return s;
	snprintf(b, n, "nr_%" PRIu32, nr);
	return b;
}

void report_costs__json(const struct row *row, FILE *f)
{
	char b[32];

	for (int k = 0; k < COST_NKINDS; k++)
		fprintf(f, ",\"%s\":%" PRIu64 ",\"%s_total\":%" PRIu64, cost_names[k],
			row->cost_self[k], cost_names[k], row->cost_total[k]);
	fputs(",\"syscalls_by_name\":{", f);
	for (uint32_t i = 0; i < row->nsys; i++) {
		fputs(i ? "," : "", f);
		text_out__json(f, name_of(row->sys[i].nr, b, sizeof(b)));
		fprintf(f, ":%" PRIu64, row->sys[i].count);
	}
	fputc('}', f);
}

/* One (row, system call) of --syscalls. */
struct sys_line {
	const struct row *row;
	uint32_t nr;
	uint64_t count;
};

static int cmp_lines(const void *pa, const void *pb, void *ctx)
{
	const struct sys_line *a = pa, *b = pb;
	const struct report *r = ctx;
	char x[32], y[32];
	int c;

	if (a->count != b->count)
		return a->count < b->count ? 1 : -1;
	if ((c = strcmp(report__name(r, a->row->fid), report__name(r, b->row->fid))))
		return c;
	return strcmp(name_of(a->nr, x, sizeof(x)), name_of(b->nr, y, sizeof(y)));
}

static void put_line(const struct report *r, const struct sys_line *l, FILE *f, bool first)
{
	const struct rgroup *g = report__group(r, l->row->group);
	char b[32];
	const char *sys = name_of(l->nr, b, sizeof(b));

	if (r->o.format == REPORT_JSON) {
		fputs(first ? "\n{\"function\":" : ",\n{\"function\":", f);
		text_out__json(f, report__name(r, l->row->fid));
		fputs(",\"syscall\":", f);
		text_out__json(f, sys);
		fprintf(f, ",\"count\":%" PRIu64, l->count);
		if (g && (r->o.by_thread || r->o.by_process))
			fprintf(f, ",\"%s\":%" PRIu32, r->o.by_thread ? "tid" : "pid",
				r->o.by_thread ? g->tid : g->pid);
		fputc('}', f);
	} else if (r->o.format == REPORT_TSV || r->o.format == REPORT_CSV) {
		char sep = r->o.format == REPORT_TSV ? '\t' : ',';

		fprintf(f, "%s%c%" PRIu64 "%c", sys, sep, l->count, sep);
		if (sep == '\t')
			text_out__tsv(f, report__name(r, l->row->fid));
		else
			text_out__csv(f, report__name(r, l->row->fid));
		fputc('\n', f);
	} else {
		fprintf(f, "%-20s %10" PRIu64 "  %s\n", sys, l->count,
			report__name(r, l->row->fid));
	}
}

int report_costs__print_syscalls(const struct report *r, FILE *f)
{
	struct sys_line *v;
	size_t n = 0;

	if (!r->st.costs)
		return -EINVAL;
	for (size_t i = 0; i < r->nrows; i++)
		n += r->rows[i].nsys;
	if (!(v = calloc(n ? n : 1, sizeof(*v))))
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < r->nrows; i++)
		for (uint32_t j = 0; j < r->rows[i].nsys; j++)
			v[n++] = (struct sys_line){ &r->rows[i], r->rows[i].sys[j].nr,
						    r->rows[i].sys[j].count };
	qsort_r(v, n, sizeof(*v), cmp_lines, (void *)r);
	if (r->o.format == REPORT_JSON)
		fputs("{\"schema\":\"sledtrace.syscalls/1\",\"rows\":[", f);
	else if (r->o.format == REPORT_TSV || r->o.format == REPORT_CSV)
		fprintf(f, "syscall%ccount%cfunction\n", r->o.format == REPORT_TSV ? '\t' : ',',
			r->o.format == REPORT_TSV ? '\t' : ',');
	else
		fprintf(f, "%-20s %10s  %s\n", "SYSCALL", "COUNT", "FUNCTION");
	for (size_t i = 0; i < n; i++)
		put_line(r, &v[i], f, i == 0);
	if (r->o.format == REPORT_JSON)
		fputs("\n]}\n", f);
	free(v);
	return 0;
}
