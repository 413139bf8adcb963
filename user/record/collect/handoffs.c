// SPDX-License-Identifier: MIT
/* handoffs.c: see handoffs.h. */
#include <errno.h>
#include <stdlib.h>

#include "record/collect/handoffs.h"

/* In-flight jobs of a work-stealing pool are a few per worker: 64 Ki
 * slots (1.5 MiB, only with --flow) keep collisions rare. */
#define SLOTS (1u << 16)

struct handoffs {
	struct handoff slot[SLOTS];
};

static uint32_t slot_of(uint64_t value)
{
	/* Fibonacci hashing: pointers differ in their middle bits */
	return (uint32_t)((value * 0x9e3779b97f4a7c15ull) >> 48);
}

int handoffs__new(struct handoffs **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void handoffs__free(struct handoffs *h)
{
	free(h);
}

void handoffs__send(struct handoffs *h, const struct handoff *sent)
{
	h->slot[slot_of(sent->value)] = *sent;
}

bool handoffs__receive(struct handoffs *h, uint64_t value, struct handoff *out)
{
	struct handoff *s = &h->slot[slot_of(value)];

	if (!s->cause || s->value != value)
		return false;
	*out = *s;
	*s = (struct handoff){ 0 };
	return true;
}
