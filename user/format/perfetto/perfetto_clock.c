// SPDX-License-Identifier: MIT
/* perfetto_clock.c: see perfetto_clock.h. */
#include <errno.h>
#include <stdlib.h>

#include "format/perfetto/perfetto_clock.h"

#define CLOCK_BOOTTIME_ID 6

struct perfetto_seq_clock {
	bool set, incremental;
	uint64_t unit, value, ref_value, ref_boot;
};

static bool own_id(uint32_t id)
{
	return id >= 64 && id <= 127;
}

int perfetto_clocks__snapshot(struct perfetto_clocks *cl, const Perfetto__Protos__ClockSnapshot *cs)
{
	uint64_t ref = 0;
	bool have_ref = false;

	for (size_t i = 0; i < cs->n_clocks; i++) {
		uint32_t id = cs->clocks[i]->clock_id;

		if (id == CLOCK_BOOTTIME_ID || (!have_ref && !own_id(id))) {
			ref = cs->clocks[i]->timestamp;
			have_ref = id == CLOCK_BOOTTIME_ID;
		}
	}
	for (size_t i = 0; i < cs->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *c = cs->clocks[i];

		if (!own_id(c->clock_id))
			continue;
		if (!cl->own && !(cl->own = calloc(64, sizeof(*cl->own))))
			return -ENOMEM;
		cl->own[c->clock_id - 64] = (struct perfetto_seq_clock){
			.set = true,
			.incremental = c->is_incremental,
			.unit = c->has_unit_multiplier_ns ? c->unit_multiplier_ns : 1,
			.value = c->timestamp,
			.ref_value = c->timestamp,
			.ref_boot = ref
		};
	}
	return 0;
}

bool perfetto_clocks__time(struct perfetto_clocks *cl, bool has_clock_id, uint32_t clock_id,
			   uint64_t timestamp, uint64_t *ts)
{
	uint32_t id = has_clock_id	? clock_id
		      : cl->has_default ? cl->default_id
					: CLOCK_BOOTTIME_ID;
	struct perfetto_seq_clock *c;
	uint64_t v;

	if (!own_id(id)) {
		*ts = timestamp;
		return true;
	}
	if (!cl->own || !(c = &cl->own[id - 64])->set)
		return false;
	v = c->incremental ? (c->value += timestamp) : timestamp;
	*ts = c->ref_boot + (v - c->ref_value) * c->unit;
	return true;
}

void perfetto_clocks__reset(struct perfetto_clocks *cl)
{
	free(cl->own);
	*cl = (struct perfetto_clocks){ 0 };
}
