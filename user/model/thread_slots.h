/* SPDX-License-Identifier: MIT */
/* thread_slots.h: a sink's per-thread state, found by trace_thread.index
 * (dense, assigned by the frame builder) instead of a table keyed by tid,
 * so a reused tid or the same tid in two processes never shares state.
 * Each slot is a zeroed block of the size the owner asked for, allocated
 * on first use; its address stays valid until the slot is released. */
#ifndef SLEDTRACE_THREAD_SLOTS_H
#define SLEDTRACE_THREAD_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"

struct thread_slots {
	void **slot; /* by thread index */
	size_t n;
	size_t size;		     /* of one slot */
	void (*release)(void *slot); /* frees what a slot points to; may be NULL */
};

/* size: bytes per slot; release: called on a slot before it is freed. */
void thread_slots__init(struct thread_slots *s, size_t size, void (*release)(void *slot));
/* th's slot, zeroed on first use; NULL when out of memory. */
void *thread_slots__get(struct thread_slots *s, const struct trace_thread *th);
/* th's slot if it has one, else NULL. */
void *thread_slots__peek(const struct thread_slots *s, uint32_t index);
/* Frees th's slot (its thread ended); a later get() gives a new one. */
void thread_slots__put(struct thread_slots *s, const struct trace_thread *th);
void thread_slots__clear(struct thread_slots *s);

#endif
