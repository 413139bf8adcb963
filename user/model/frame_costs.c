// SPDX-License-Identifier: MIT
/* frame_costs.c: see frame_costs.h.  Per open frame: the thread's totals
 * when it began, what its ended children spent in all, and its own system
 * calls by number (a short list: a frame makes few kinds).  The arrays
 * grow with the deepest stack seen and are reused, so a thread costs
 * nothing per call once warm. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/frame_costs.h"

const char *const cost_names[COST_NKINDS] = {
	[COST_ALLOCS] = "allocs",
	[COST_ALLOC_BYTES] = "alloc_bytes",
	[COST_FREES] = "frees",
	[COST_SYSCALLS] = "syscalls",
	[COST_PAGE_FAULTS] = "page_faults",
	[COST_VOLUNTARY_SWITCHES] = "voluntary_switches",
};

int cost_kind__parse(const char *name)
{
	for (int k = 0; k < COST_NKINDS; k++)
		if (!strcmp(name, cost_names[k]))
			return k;
	return -1;
}

bool frame_costs__any(const struct frame_costs *c)
{
	for (int k = 0; k < COST_NKINDS; k++)
		if (c->total[k])
			return true;
	return false;
}

struct cost_depth {
	uint64_t begin[COST_NKINDS];
	uint64_t child[COST_NKINDS];
	struct cost_syscall *sys;
	uint32_t nsys, capsys;
};

struct cost_stack {
	uint64_t run[COST_NKINDS]; /* the thread's totals */
	struct cost_depth *at;	   /* at[d - 1]: the frame at depth d */
	uint32_t cap;
	struct frame_costs out;
};

void cost_stack__free(struct cost_stack *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->cap; i++)
		free(s->at[i].sys);
	free(s->at);
	free(s);
}

/* Room for depth frames; new ones began before anything was spent (their
 * begin is 0, as the totals were). */
static int reserve(struct cost_stack *s, uint32_t depth)
{
	uint32_t cap = s->cap ? s->cap : 16;
	struct cost_depth *at;

	if (depth <= s->cap)
		return 0;
	while (cap < depth)
		cap *= 2;
	if (!(at = realloc(s->at, cap * sizeof(*at))))
		return -ENOMEM;
	memset(at + s->cap, 0, (cap - s->cap) * sizeof(*at));
	s->at = at;
	s->cap = cap;
	return 0;
}

int cost_syscalls__add(struct cost_syscall **v, uint32_t *n, uint32_t *cap, uint32_t nr,
		       uint64_t count)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*v)[i].nr == nr) {
			(*v)[i].count += count;
			return 0;
		}
	if (*n == *cap) {
		uint32_t room = *cap ? 2 * *cap : 4;
		struct cost_syscall *grown = realloc(*v, room * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		*v = grown;
		*cap = room;
	}
	(*v)[(*n)++] = (struct cost_syscall){ .nr = nr, .count = count };
	return 0;
}

int cost_stack__add(struct cost_stack **sp, uint32_t depth, enum cost_kind kind, uint64_t n,
		    uint32_t nr)
{
	struct cost_stack *s = *sp;
	int err;

	if ((unsigned)kind >= COST_NKINDS)
		return -EINVAL;
	if (!s && !(s = *sp = calloc(1, sizeof(*s))))
		return -ENOMEM;
	if ((err = reserve(s, depth)))
		return err;
	s->run[kind] += n;
	if (kind == COST_SYSCALLS && depth)
		return cost_syscalls__add(&s->at[depth - 1].sys, &s->at[depth - 1].nsys,
					  &s->at[depth - 1].capsys, nr, n);
	return 0;
}

int cost_stack__enter(struct cost_stack *s, uint32_t depth)
{
	struct cost_depth *d;
	int err;

	if ((err = reserve(s, depth)))
		return err;
	d = &s->at[depth - 1];
	memcpy(d->begin, s->run, sizeof(d->begin));
	memset(d->child, 0, sizeof(d->child));
	d->nsys = 0;
	return 0;
}

const struct frame_costs *cost_stack__leave(struct cost_stack *s, uint32_t depth)
{
	struct cost_depth *d;

	if (reserve(s, depth))
		return NULL;
	d = &s->at[depth - 1];
	for (int k = 0; k < COST_NKINDS; k++) {
		s->out.total[k] = s->run[k] - d->begin[k];
		s->out.self[k] = s->out.total[k] - d->child[k];
		if (depth > 1)
			s->at[depth - 2].child[k] += s->out.total[k];
	}
	s->out.syscalls = d->sys;
	s->out.nsyscalls = d->nsys;
	return &s->out;
}
