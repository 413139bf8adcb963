// SPDX-License-Identifier: MIT
/* num_text.c: see num_text.h.  Digits are produced from the last one
 * backwards into a scratch buffer, then copied: no length to guess. */
#include <string.h>

#include "util/num_text.h"

static size_t copy_tail(char *p, const char *start, const char *end)
{
	memcpy(p, start, (size_t)(end - start));
	return (size_t)(end - start);
}

size_t num_text__u64(char *p, uint64_t v)
{
	char tmp[NUM_TEXT_MAX], *end = tmp + sizeof(tmp), *s = end;

	do
		*--s = (char)('0' + v % 10);
	while (v /= 10);
	return copy_tail(p, s, end);
}

size_t num_text__i64(char *p, int64_t v)
{
	/* the magnitude in unsigned arithmetic: -INT64_MIN overflows */
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (v >= 0)
		return num_text__u64(p, mag);
	*p = '-';
	return 1 + num_text__u64(p + 1, mag);
}

size_t num_text__hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[NUM_TEXT_MAX], *end = tmp + sizeof(tmp), *s = end;

	do
		*--s = digits[v & 15];
	while (v >>= 4);
	*--s = 'x';
	*--s = '0';
	return copy_tail(p, s, end);
}
