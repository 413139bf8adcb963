// SPDX-License-Identifier: MIT
/* dot.c: see dot.h.  Paths merge into functions and edges here; memory is
 * per function and per distinct edge. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/dot.h"
#include "format/stats_line.h"
#include "model/probe_comp.h"
#include "util/u64map.h"
#include "format/text_out.h"

struct dot_fn {
	uint32_t fid;
	uint64_t calls, self_ns;
};

struct dot_edge {
	uint32_t from, to;
	uint64_t calls;
};

struct dot {
	struct u64map fn_idx, edge_idx;
	struct dot_fn *fns;
	struct dot_edge *edges;
	size_t nfns, nedges, capfns, capedges;
};

static int grow(void **v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *q;

	if (need <= *cap)
		return 0;
	if (!(q = realloc(*v, c * size)))
		return -ENOMEM;
	*v = q;
	*cap = c;
	return 0;
}

static struct dot_fn *fn_of(struct dot *d, uint32_t fid)
{
	uint64_t idx, key = (uint64_t)fid + 1;

	if (u64map__get(&d->fn_idx, key, &idx))
		return &d->fns[idx];
	if (grow((void **)&d->fns, &d->capfns, d->nfns + 1, sizeof(*d->fns)) ||
	    u64map__put(&d->fn_idx, key, d->nfns))
		return NULL;
	d->fns[d->nfns] = (struct dot_fn){ .fid = fid };
	return &d->fns[d->nfns++];
}

static int add_edge(struct dot *d, uint32_t from, uint32_t to, uint64_t calls)
{
	uint64_t idx, key = ((uint64_t)from << 32 | to) + 1;

	if (!u64map__get(&d->edge_idx, key, &idx)) {
		if (grow((void **)&d->edges, &d->capedges, d->nedges + 1, sizeof(*d->edges)) ||
		    u64map__put(&d->edge_idx, key, d->nedges))
			return -ENOMEM;
		idx = d->nedges++;
		d->edges[idx] = (struct dot_edge){ .from = from, .to = to };
	}
	d->edges[idx].calls += calls;
	return 0;
}

static int collect(struct dot *d, const struct calltree *ct)
{
	for (size_t i = 1; i < calltree__count(ct); i++) {
		const struct calltree_node *n = calltree__node(ct, i);
		struct dot_fn *fn = fn_of(d, n->fid);

		if (!fn)
			return -ENOMEM;
		fn->calls += n->calls;
		fn->self_ns += n->self_ns;
		if (n->parent && add_edge(d, calltree__node(ct, n->parent)->fid, n->fid, n->calls))
			return -ENOMEM;
	}
	return 0;
}

static void put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
}

static void put_ns(FILE *f, uint64_t ns)
{
	char buf[32];

	fputs(text_out__ns(buf, sizeof(buf), ns, " "), f);
}

static void emit(const struct dot *d, const struct calltree *ct, FILE *f)
{
	char line[STATS_LINE_MAX];

	stats_line__format(calltree__stats(ct), line, sizeof(line));
	fprintf(f,
		"digraph calls {\n  // sledtrace call graph: exact call counts\n"
		"  // %s\n  // times=%s\n  node [shape=box, fontname=\"monospace\"];\n",
		line, comp__times_name(calltree__compensated(ct)));
	for (size_t i = 0; i < d->nfns; i++) {
		const struct dot_fn *fn = &d->fns[i];

		fprintf(f, "  f%" PRIu32 " [label=\"", fn->fid);
		put_label(f, calltree__name(ct, fn->fid));
		fprintf(f, "\\ncalls %" PRIu64 "\\nself ", fn->calls);
		put_ns(f, fn->self_ns);
		fprintf(f, "\", calls=%" PRIu64 ", self_ns=%" PRIu64 "];\n", fn->calls,
			fn->self_ns);
	}
	for (size_t i = 0; i < d->nedges; i++)
		fprintf(f,
			"  f%" PRIu32 " -> f%" PRIu32 " [label=\"%" PRIu64 "\", calls=%" PRIu64
			"];\n",
			d->edges[i].from, d->edges[i].to, d->edges[i].calls, d->edges[i].calls);
	fputs("}\n", f);
}

int dot__write(const struct calltree *ct, FILE *f)
{
	struct dot d = { 0 };
	int err = collect(&d, ct);

	if (!err) {
		emit(&d, ct, f);
		err = ferror(f) ? -EIO : 0;
	}
	u64map__clear(&d.fn_idx);
	u64map__clear(&d.edge_idx);
	free(d.fns);
	free(d.edges);
	return err;
}
