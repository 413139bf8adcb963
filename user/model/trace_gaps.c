// SPDX-License-Identifier: MIT
/* trace_gaps.c: see trace_gaps.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/trace_gaps.h"

int trace_gaps__add(struct trace_gaps *l, const struct trace_gap *g)
{
	struct trace_gap *d;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;

		if (!(d = realloc(l->g, cap * sizeof(*d))))
			return -ENOMEM;
		l->g = d;
		l->cap = cap;
	}
	d = &l->g[l->n];
	*d = *g;
	d->why = strdup(g->why ? g->why : "");
	d->object = g->object ? strdup(g->object) : NULL;
	if (!d->why || (g->object && !d->object)) {
		free((char *)d->why);
		free((char *)d->object);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct trace_gap *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int trace_gaps__emit(struct trace_gaps *l, struct frame_builder *fb)
{
	if (l->n)
		qsort(l->g, l->n, sizeof(*l->g), by_start);
	for (size_t i = 0; i < l->n; i++) {
		int err = frame_builder__gap(fb, &l->g[i]);

		if (err)
			return err;
	}
	return 0;
}

void trace_gaps__describe(const struct trace_gap *g, char *buf, size_t len)
{
	char span[64] = "until it ended";

	if (g->end_ns > g->start_ns)
		snprintf(span, sizeof(span), "for %.3f ms",
			 (double)(g->end_ns - g->start_ns) / 1e6);
	snprintf(buf, len, "process %u may have run %s unprobed %s: %s", g->pid,
		 g->object ? g->object : "what it mapped", span, g->why);
}

void trace_gaps__free(struct trace_gaps *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free((char *)l->g[i].object);
		free((char *)l->g[i].why);
	}
	free(l->g);
	*l = (struct trace_gaps){ 0 };
}
