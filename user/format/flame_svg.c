// SPDX-License-Identifier: MIT
/* flame_svg.c: see flame_svg.h.  Widths are inclusive time computed from
 * self time bottom-up (self + children), so a frame is never narrower
 * than its children even where clamped durations disagree.  Siblings are
 * ordered by name, as flame graphs are; the root bar "all" is the whole
 * trace. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/flame_svg.h"
#include "format/stats_line.h"
#include "format/text_out.h"
#include "model/probe_comp.h"

#define ROW 16
#define TOP 40
#define BOTTOM 30
#define PAD 10
#define CHAR_PX 7.0

struct fl {
	const struct calltree *ct;
	size_t n;
	uint64_t *incl, *x; /* ns */
	uint64_t *next;	    /* per parent: offset its earlier children took */
	uint32_t *depth, *order;
	uint32_t maxdepth;
	double scale; /* px per ns */
	double min_width;
	FILE *f;
};

static int cmp_sibling(const void *a, const void *b, void *ctx)
{
	const struct calltree *ct = ctx;
	const struct calltree_node *na = calltree__node(ct, *(const uint32_t *)a);
	const struct calltree_node *nb = calltree__node(ct, *(const uint32_t *)b);

	if (na->parent != nb->parent)
		return na->parent < nb->parent ? -1 : 1;
	return strcmp(calltree__name(ct, na->fid), calltree__name(ct, nb->fid));
}

/* Children always come after their parent in the calltree. */
static void layout(struct fl *l)
{
	for (size_t i = l->n; i-- > 1;)
		l->incl[i] += calltree__node(l->ct, i)->self_ns;
	for (size_t i = l->n; i-- > 1;)
		l->incl[calltree__node(l->ct, i)->parent] += l->incl[i];
	for (size_t i = 0; i < l->n; i++)
		l->order[i] = (uint32_t)i;
	qsort_r(l->order + 1, l->n - 1, sizeof(*l->order), cmp_sibling, (void *)l->ct);
	for (size_t k = 1; k < l->n; k++) {
		uint32_t i = l->order[k], p = calltree__node(l->ct, i)->parent;

		l->depth[i] = l->depth[p] + 1;
		if (l->depth[i] > l->maxdepth)
			l->maxdepth = l->depth[i];
		l->x[i] = l->x[p] + l->next[p];
		l->next[p] += l->incl[i];
	}
}

static void put_text(FILE *f, const char *s, size_t max)
{
	size_t n = strlen(s), i;
	int dots = n > max;

	if (dots)
		n = max > 2 ? max - 2 : 0;
	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc((unsigned char)s[i] < 0x20 ? ' ' : s[i], f);
		}
	}
	if (dots)
		fputs("..", f);
}

static void color(const char *s, unsigned *r, unsigned *g, unsigned *b)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	*r = 205 + h % 50;
	*g = 80 + (h >> 8) % 130;
	*b = 40 + (h >> 16) % 40;
}

static void put_ns(FILE *f, uint64_t ns)
{
	char buf[32];

	fputs(text_out__ns(buf, sizeof(buf), ns, " "), f);
}

static void frame(struct fl *l, uint32_t i, double height)
{
	const struct calltree_node *n = calltree__node(l->ct, i);
	const char *name = i ? calltree__name(l->ct, n->fid) : "all";
	double w = (double)l->incl[i] * l->scale, x = PAD + (double)l->x[i] * l->scale;
	double y = height - BOTTOM - (double)(l->depth[i] + 1) * ROW;
	size_t fits = w > 6 ? (size_t)((w - 6) / CHAR_PX) : 0;
	unsigned r, g, b;

	if (w < l->min_width || !l->incl[i])
		return;
	color(name, &r, &g, &b);
	fputs("<g><title>", l->f);
	put_text(l->f, name, (size_t)-1);
	if (i)
		fprintf(l->f, " (calls %" PRIu64 ", self ", n->calls);
	else
		fputs(" (", l->f);
	put_ns(l->f, i ? n->self_ns : 0);
	fputs(", total ", l->f);
	put_ns(l->f, l->incl[i]);
	fprintf(l->f, ", %.2f%%)</title>", 100.0 * (double)l->incl[i] / (double)l->incl[0]);
	fprintf(l->f,
		"<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" rx=\"2\" "
		"fill=\"rgb(%u,%u,%u)\"/>",
		x, y, w, ROW - 1, r, g, b);
	/* a label needs room for a few characters, or ".." if cut */
	if (fits >= strlen(name) || fits >= 4) {
		fprintf(l->f, "<text x=\"%.2f\" y=\"%.1f\">", x + 3, y + ROW - 4);
		put_text(l->f, name, fits);
		fputs("</text>", l->f);
	}
	fputs("</g>\n", l->f);
}

static void emit(struct fl *l, unsigned width)
{
	double height = TOP + BOTTOM + (double)(l->maxdepth + 1) * ROW;
	char line[STATS_LINE_MAX];

	l->scale = l->incl[0] ? (double)(width - 2 * PAD) / (double)l->incl[0] : 0;
	fprintf(l->f,
		"<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text{font-family:monospace;font-size:12px;fill:#000}"
		"rect:hover{stroke:#000;stroke-width:0.5}</style>\n"
		"<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
		"<text x=\"%u\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">"
		"sledtrace flame graph (width: inclusive time, times=%s)</text>\n",
		width, height, width, height, width / 2,
		comp__times_name(calltree__compensated(l->ct)));
	if (!l->incl[0])
		fputs("<text x=\"10\" y=\"60\">no calls with measured time</text>\n", l->f);
	for (size_t k = 0; k < l->n; k++)
		frame(l, l->order[k], height);
	stats_line__format(calltree__stats(l->ct), line, sizeof(line));
	fprintf(l->f, "<text x=\"%d\" y=\"%.0f\" style=\"font-size:10px\">", PAD, height - 10);
	put_text(l->f, line, sizeof(line));
	fputs("</text>\n</svg>\n", l->f);
}

int flame_svg__write(const struct calltree *ct, const struct flame_svg_opts *o, FILE *f)
{
	struct fl l = { .ct = ct, .n = calltree__count(ct), .f = f };
	unsigned width = o && o->width ? o->width : 1200;
	int err = 0;

	l.min_width = o && o->min_width >= 0 ? o->min_width : 0.1;
	l.incl = calloc(l.n, sizeof(*l.incl));
	l.x = calloc(l.n, sizeof(*l.x));
	l.depth = calloc(l.n, sizeof(*l.depth));
	l.order = calloc(l.n, sizeof(*l.order));
	l.next = calloc(l.n, sizeof(*l.next));
	if (!l.incl || !l.x || !l.depth || !l.order || !l.next || width < 4 * PAD) {
		err = width < 4 * PAD ? -EINVAL : -ENOMEM;
	} else {
		layout(&l);
		emit(&l, width);
		err = ferror(f) ? -EIO : 0;
	}
	free(l.incl);
	free(l.x);
	free(l.depth);
	free(l.order);
	free(l.next);
	return err;
}
