// SPDX-License-Identifier: MIT
/* stitch.c: see stitch.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/stitch.h"
#include "util/grow.h"
#include "util/u64map.h"

struct stitch {
	struct u64map by_id; /* frame id -> index + 1 in links */
	struct stitch_link *links;
	size_t n, cap;
};

int stitch__new(struct stitch **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void stitch__free(struct stitch *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->links[i].fids);
	free(s->links);
	u64map__clear(&s->by_id);
	free(s);
}

const struct stitch_link *stitch__link(const struct stitch *s, uint64_t frame_id)
{
	uint64_t idx;

	if (!frame_id || !u64map__get(&s->by_id, frame_id, &idx))
		return NULL;
	return &s->links[idx - 1];
}

static struct stitch_link *add_link(struct stitch *s, uint64_t frame_id)
{
	if (grow__room((void **)&s->links, &s->cap, s->n, sizeof(*s->links)) ||
	    u64map__put(&s->by_id, frame_id, s->n + 1))
		return NULL;
	s->links[s->n] = (struct stitch_link){ 0 };
	return &s->links[s->n++];
}

bool stitch__follows(const struct frame *stack, uint32_t i)
{
	if (!stack[i].cause)
		return false;
	for (uint32_t j = 0; stack[i].cause_kind == CAUSE_WAKEUP && j < i; j++)
		if (stack[j].cause_kind == CAUSE_HANDOFF)
			return false;
	return true;
}

/* stack[depth - 1] caused something: its link, once per frame. */
static int st_cause(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, const struct cause_point *cp)
{
	struct stitch *s = ctx;
	struct stitch_link *l;
	uint32_t from = depth - 1;

	(void)cp;
	if (stitch__link(s, stack[depth - 1].id))
		return 0;
	while (from > 0 && !stitch__follows(stack, from))
		from--;
	if (!(l = add_link(s, stack[depth - 1].id)) ||
	    !(l->fids = malloc((depth - from) * sizeof(*l->fids))))
		return -ENOMEM;
	l->cause = stitch__follows(stack, from) ? stack[from].cause : 0;
	l->thread = th->index;
	l->n = depth - from;
	for (uint32_t i = from; i < depth; i++)
		l->fids[i - from] = stack[i].fid;
	return 0;
}

static const struct frame_sink_ops stitch_ops = { .cause = st_cause };

struct frame_sink stitch__sink(struct stitch *s)
{
	return (struct frame_sink){ .ops = &stitch_ops, .ctx = s };
}
