// SPDX-License-Identifier: MIT
/* report_values.c: see report_values.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_values.h"
#include "format/text_out.h"

#define VALUE_SLOTS 64

struct vslot {
	char *text;
	uint64_t n;
};

struct varg {
	char *name;
	struct vslot slot[VALUE_SLOTS];
	uint32_t used;
	bool approx; /* more distinct texts than slots came */
};

struct vfunc {
	uint32_t fid;
	uint64_t calls;
	struct varg *args;
	uint32_t nargs;
};

static struct vfunc *func_of(struct report_values *rv, uint32_t fid)
{
	uint64_t i;
	struct vfunc *v;

	if (u64map__get(&rv->idx, (uint64_t)fid + 1, &i))
		return &rv->funcs[i - 1];
	if (!(v = realloc(rv->funcs, (rv->n + 1) * sizeof(*v))))
		return NULL;
	rv->funcs = v;
	if (u64map__put(&rv->idx, (uint64_t)fid + 1, rv->n + 1))
		return NULL;
	rv->funcs[rv->n] = (struct vfunc){ .fid = fid };
	return &rv->funcs[rv->n++];
}

static struct varg *arg_of(struct vfunc *f, const char *name)
{
	struct varg *v;

	for (uint32_t i = 0; i < f->nargs; i++)
		if (!strcmp(f->args[i].name, name))
			return &f->args[i];
	if (!(v = realloc(f->args, (f->nargs + 1) * sizeof(*v))))
		return NULL;
	f->args = v;
	v = &f->args[f->nargs];
	*v = (struct varg){ .name = strdup(name) };
	if (!v->name)
		return NULL;
	f->nargs++;
	return v;
}

/* Space-saving: a known text counts up; a new one takes a free slot, or
 * the least counted one's, with that count plus one. */
static int count_text(struct varg *a, const char *text)
{
	uint32_t min = 0;
	char *copy;

	for (uint32_t i = 0; i < a->used; i++) {
		if (!strcmp(a->slot[i].text, text)) {
			a->slot[i].n++;
			return 0;
		}
		if (a->slot[i].n < a->slot[min].n)
			min = i;
	}
	if (!(copy = strdup(text)))
		return -ENOMEM;
	if (a->used < VALUE_SLOTS) {
		a->slot[a->used++] = (struct vslot){ .text = copy, .n = 1 };
		return 0;
	}
	free(a->slot[min].text);
	a->slot[min].text = copy;
	a->slot[min].n++;
	a->approx = true;
	return 0;
}

int report_values__add(struct report_values *rv, uint32_t fid, const struct frame_values *v)
{
	struct vfunc *f = func_of(rv, fid);

	if (!f)
		return -ENOMEM;
	f->calls++;
	for (uint32_t i = 0; i < v->n; i++) {
		struct varg *a = arg_of(f, v->v[i].name);

		if (!a || count_text(a, v->v[i].text))
			return -ENOMEM;
	}
	return 0;
}

bool report_values__has(const struct report_values *rv, uint32_t fid)
{
	uint64_t i;

	return u64map__get(&rv->idx, (uint64_t)fid + 1, &i);
}

static int by_count(const void *a, const void *b)
{
	const struct vslot *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* fid's counts with each argument's slots most frequent first; NULL
 * without values. */
static struct vfunc *sorted(struct report_values *rv, uint32_t fid)
{
	uint64_t idx;
	struct vfunc *fn;

	if (!u64map__get(&rv->idx, (uint64_t)fid + 1, &idx))
		return NULL;
	fn = &rv->funcs[idx - 1];
	for (uint32_t i = 0; i < fn->nargs; i++)
		qsort(fn->args[i].slot, fn->args[i].used, sizeof(fn->args[i].slot[0]), by_count);
	return fn;
}

/* "TEXT xN, TEXT xN, ... (K more)": an argument's top texts. */
static void put_top(const struct varg *a, unsigned top, FILE *f)
{
	for (uint32_t k = 0; k < a->used && k < top; k++)
		fprintf(f, "%s%s x%" PRIu64, k ? ", " : "", a->slot[k].text, a->slot[k].n);
	if (a->used > top)
		fprintf(f, ", ... (%u more)", a->used - top);
}

void report_values__print(struct report_values *rv, uint32_t fid, const char *name, unsigned top,
			  FILE *f)
{
	struct vfunc *fn = sorted(rv, fid);

	if (!fn)
		return;
	fprintf(f, "\nvalues of %s (%" PRIu64 " calls with values):\n", name, fn->calls);
	for (uint32_t i = 0; i < fn->nargs; i++) {
		fprintf(f, "  %s%s: ", fn->args[i].name,
			fn->args[i].approx ? " (approximate: many values)" : "");
		put_top(&fn->args[i], top, f);
		fputc('\n', f);
	}
}

char *report_values__text(struct report_values *rv, uint32_t fid, unsigned top)
{
	struct vfunc *fn = sorted(rv, fid);
	char *text = NULL;
	size_t len;
	FILE *f;

	if (!fn || !(f = open_memstream(&text, &len)))
		return NULL;
	for (uint32_t i = 0; i < fn->nargs; i++) {
		fprintf(f, "%s%s%s: ", i ? "; " : "", fn->args[i].name,
			fn->args[i].approx ? " (approximate)" : "");
		put_top(&fn->args[i], top, f);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

void report_values__json(struct report_values *rv, uint32_t fid, FILE *f)
{
	struct vfunc *fn = sorted(rv, fid);

	if (!fn)
		return;
	fprintf(f, "{\"calls\":%" PRIu64 ",\"args\":[", fn->calls);
	for (uint32_t i = 0; i < fn->nargs; i++) {
		const struct varg *a = &fn->args[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		text_out__json(f, a->name);
		fprintf(f, ",\"approximate\":%s,\"top\":[", a->approx ? "true" : "false");
		for (uint32_t k = 0; k < a->used; k++) {
			fputs(k ? ",{\"value\":" : "{\"value\":", f);
			text_out__json(f, a->slot[k].text);
			fprintf(f, ",\"count\":%" PRIu64 "}", a->slot[k].n);
		}
		fputs("]}", f);
	}
	fputs("]}", f);
}

void report_values__free(struct report_values *rv)
{
	for (size_t i = 0; i < rv->n; i++) {
		for (uint32_t k = 0; k < rv->funcs[i].nargs; k++) {
			for (uint32_t s = 0; s < rv->funcs[i].args[k].used; s++)
				free(rv->funcs[i].args[k].slot[s].text);
			free(rv->funcs[i].args[k].name);
		}
		free(rv->funcs[i].args);
	}
	free(rv->funcs);
	u64map__clear(&rv->idx);
	*rv = (struct report_values){ 0 };
}
