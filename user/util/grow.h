/* SPDX-License-Identifier: MIT */
/* grow.h: the one way an array that only grows gets room: doubled when
 * full, from 64 elements, so appending n elements costs O(n) copies. */
#ifndef SLEDTRACE_GROW_H
#define SLEDTRACE_GROW_H

#include <errno.h>
#include <stdlib.h>

/* Room in *v (*cap elements of size bytes, n of them used) for one more.
 * 0, or -ENOMEM with *v and *cap as they were. */
static inline int grow__room(void **v, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return 0;
	if (!(p = realloc(*v, c * size)))
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

#endif
