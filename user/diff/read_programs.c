// SPDX-License-Identifier: MIT
/* read_programs.c: see read_programs.h.  Runs name a handful of objects,
 * so sets are plain arrays searched linearly. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/read_programs.h"

static const char *const side_names[2] = { "base", "head" };

static bool has(const struct diff_prog_run *r, const char *object)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->objects[i], object))
			return true;
	return false;
}

static int push(char ***v, size_t *n, const char *s)
{
	char **w = realloc(*v, (*n + 1) * sizeof(*w));

	if (!w)
		return -ENOMEM;
	*v = w;
	if (!(w[*n] = strdup(s)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

int diff_programs__add_run(struct diff_programs *p, int side)
{
	struct diff_prog_run *v = realloc(p->runs[side], (p->nruns[side] + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->runs[side] = v;
	v[p->nruns[side]++] = (struct diff_prog_run){ 0 };
	return 0;
}

int diff_programs__add_object(struct diff_programs *p, int side, const char *object)
{
	struct diff_prog_run *r = &p->runs[side][p->nruns[side] - 1];

	return has(r, object) ? 0 : push(&r->objects, &r->n, object);
}

static bool share(const struct diff_prog_run *a, const struct diff_prog_run *b)
{
	for (size_t i = 0; i < a->n; i++)
		if (has(b, a->objects[i]))
			return true;
	return false;
}

static bool side_has(const struct diff_programs *p, int side, const char *object)
{
	for (size_t k = 0; k < p->nruns[side]; k++)
		if (has(&p->runs[side][k], object))
			return true;
	return false;
}

/* "a, b, c" (at most what fits). */
static const char *list(const struct diff_prog_run *r, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "",
					*r->objects[i] ? r->objects[i] : "(unnamed)");
	return r->n ? buf : "none";
}

static int differ(const struct diff_prog_run *a, const struct diff_prog_run *b, const char *what,
		  char *err, size_t errlen)
{
	char la[256], lb[256];

	snprintf(err, errlen,
		 "diff: %s share no object (%s vs %s): runs of different programs, or builds "
		 "whose files are named differently",
		 what, list(a, la, sizeof(la)), list(b, lb, sizeof(lb)));
	return -EINVAL;
}

static int collect_only(struct diff_programs *p)
{
	for (int s = 0; s < 2; s++)
		for (size_t k = 0; k < p->nruns[s]; k++)
			for (size_t i = 0; i < p->runs[s][k].n; i++) {
				const char *o = p->runs[s][k].objects[i];
				struct diff_prog_run seen = { p->only[s], p->nonly[s] };

				if (side_has(p, !s, o) || has(&seen, o))
					continue;
				if (push(&p->only[s], &p->nonly[s], o))
					return -ENOMEM;
			}
	return 0;
}

int diff_programs__check(struct diff_programs *p, char *err, size_t errlen)
{
	char what[64];

	for (int s = 0; s < 2; s++) {
		for (size_t k = 1; k < p->nruns[s]; k++) {
			if (share(&p->runs[s][0], &p->runs[s][k]))
				continue;
			snprintf(what, sizeof(what), "runs 1 and %zu of %s", k + 1, side_names[s]);
			return differ(&p->runs[s][0], &p->runs[s][k], what, err, errlen);
		}
	}
	if (p->nruns[0] && p->nruns[1] && !share(&p->runs[0][0], &p->runs[1][0]))
		return differ(&p->runs[0][0], &p->runs[1][0], "base and head", err, errlen);
	return collect_only(p);
}

void diff_programs__free(struct diff_programs *p)
{
	for (int s = 0; s < 2; s++) {
		for (size_t k = 0; k < p->nruns[s]; k++) {
			for (size_t i = 0; i < p->runs[s][k].n; i++)
				free(p->runs[s][k].objects[i]);
			free(p->runs[s][k].objects);
		}
		for (size_t i = 0; i < p->nonly[s]; i++)
			free(p->only[s][i]);
		free(p->runs[s]);
		free(p->only[s]);
	}
	*p = (struct diff_programs){ 0 };
}
