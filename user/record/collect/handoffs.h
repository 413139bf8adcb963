/* SPDX-License-Identifier: MIT */
/* handoffs.h: record --flow's values in flight (docs/DESIGN.md, "Causes"):
 * the value a sending call passed, with its frame and flow, until a
 * receiving call passes it too.  A table of fixed size indexed by the
 * value's hash: a send evicts whatever older send shared its slot (a job
 * long done, or the rare collision: a link lost, never a wrong one, since
 * a receive checks the value itself), so memory stays bounded whatever
 * the program sends and never receives. */
#ifndef SLEDTRACE_HANDOFFS_H
#define SLEDTRACE_HANDOFFS_H

#include <stdbool.h>
#include <stdint.h>

struct handoff {
	uint64_t value; /* what was sent; 0 with cause 0: an empty slot */
	uint64_t cause; /* the sending frame's id */
	uint64_t flow;
};

struct handoffs;

int handoffs__new(struct handoffs **out);
void handoffs__free(struct handoffs *h);
void handoffs__send(struct handoffs *h, const struct handoff *sent);
/* The send of value, taken out of the table; false when none is in it. */
bool handoffs__receive(struct handoffs *h, uint64_t value, struct handoff *out);

#endif
