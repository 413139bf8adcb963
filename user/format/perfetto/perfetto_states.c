// SPDX-License-Identifier: MIT
/* perfetto_states.c: see perfetto_states.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_layout.h"
#include "format/perfetto/perfetto_states.h"
#include "util/u64map.h"

struct perfetto_states {
	struct u64map owner; /* state track uuid -> its parent's uuid */
	struct u64map begun; /* state track uuid -> 1 once a slice began on it */
};

struct perfetto_states *perfetto_states__new(void)
{
	return calloc(1, sizeof(struct perfetto_states));
}

void perfetto_states__free(struct perfetto_states *ps)
{
	if (!ps)
		return;
	u64map__clear(&ps->owner);
	u64map__clear(&ps->begun);
	free(ps);
}

/* A track descriptor describes one track for good: the first one stays. */
int perfetto_states__describe(struct perfetto_states *ps,
			      const Perfetto__Protos__TrackDescriptor *td)
{
	if (!td->has_uuid || !td->uuid || !td->has_parent_uuid || !td->parent_uuid || td->thread ||
	    td->process || !td->name || strcmp(td->name, PERFETTO_STATE_TRACK) ||
	    u64map__find(&ps->owner, td->uuid))
		return 0;
	return u64map__put(&ps->owner, td->uuid, td->parent_uuid);
}

uint64_t perfetto_states__owner(const struct perfetto_states *ps, uint64_t uuid)
{
	uint64_t owner = 0;

	u64map__get(&ps->owner, uuid, &owner);
	return owner;
}

int perfetto_states__begin(struct perfetto_states *ps, struct frame_builder *fb,
			   struct fb_thread *t, uint64_t uuid, const char *name, uint64_t ts)
{
	int state = name ? thread_state__parse(name) : -1, err;
	bool first;

	if (state < 0)
		return 0;
	first = !u64map__find(&ps->begun, uuid);
	if (first && (err = u64map__put(&ps->begun, uuid, 1)))
		return err;
	if (first && state == THREAD_RUNNING)
		return 0;
	return frame_builder__sched(fb, t, ts, (enum thread_state)state);
}
