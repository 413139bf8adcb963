// SPDX-License-Identifier: MIT
/* thread_slots.c: see thread_slots.h. */
#include <stdlib.h>
#include <string.h>

#include "model/thread_slots.h"

void thread_slots__init(struct thread_slots *s, size_t size, void (*release)(void *slot))
{
	*s = (struct thread_slots){ .size = size, .release = release };
}

static int reserve(struct thread_slots *s, uint32_t index)
{
	size_t n = s->n ? s->n : 64;
	void **v;

	if (index < s->n)
		return 0;
	while (n <= index)
		n *= 2;
	if (!(v = realloc(s->slot, n * sizeof(*v))))
		return -1;
	memset(v + s->n, 0, (n - s->n) * sizeof(*v));
	s->slot = v;
	s->n = n;
	return 0;
}

void *thread_slots__get(struct thread_slots *s, const struct trace_thread *th)
{
	if (th->index < s->n && s->slot[th->index])
		return s->slot[th->index];
	if (reserve(s, th->index))
		return NULL;
	return s->slot[th->index] = calloc(1, s->size);
}

void *thread_slots__peek(const struct thread_slots *s, uint32_t index)
{
	return index < s->n ? s->slot[index] : NULL;
}

void thread_slots__put(struct thread_slots *s, const struct trace_thread *th)
{
	void *p = thread_slots__peek(s, th->index);

	if (!p)
		return;
	if (s->release)
		s->release(p);
	free(p);
	s->slot[th->index] = NULL;
}

void thread_slots__clear(struct thread_slots *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->slot[i]) {
			if (s->release)
				s->release(s->slot[i]);
			free(s->slot[i]);
		}
	free(s->slot);
	s->slot = NULL;
	s->n = 0;
}
