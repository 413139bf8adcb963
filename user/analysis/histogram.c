// SPDX-License-Identifier: MIT
/* histogram.c: see histogram.h. */
#include <math.h>

#include "analysis/histogram.h"

static uint64_t midpoint(unsigned b)
{
	unsigned e, sub;
	uint64_t lo, width;

	if (b < 8)
		return b;
	e = (b - 8) / 8 + HIST_SUB_BITS;
	sub = (b - 8) % 8;
	width = 1ULL << (e - HIST_SUB_BITS);
	lo = (8ULL + sub) * width;
	return lo + width / 2;
}

uint64_t histogram__quantile(const struct histogram *h, uint64_t count, double q, uint64_t min,
			     uint64_t max)
{
	uint64_t rank, seen = 0, v = max;

	if (!count)
		return 0;
	rank = (uint64_t)ceil(q * (double)count);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < HIST_BUCKETS; b++) {
		seen += h->n[b];
		if (seen >= rank) {
			v = midpoint(b);
			break;
		}
	}
	return v < min ? min : v > max ? max : v;
}
