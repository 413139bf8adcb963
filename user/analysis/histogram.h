/* SPDX-License-Identifier: MIT */
/* histogram.h: call durations in log-scaled buckets, for percentiles in
 * bounded memory.  Values below 8 ns have a bucket each; above, every
 * power of two is split into 8 equal buckets, so a bucket spans at most
 * 1/8 of its lower bound and its midpoint is within 6.25% of any value in
 * it.  496 buckets of 32-bit counts: 2 KiB per histogram, whatever the
 * number of calls. */
#ifndef SLEDTRACE_HISTOGRAM_H
#define SLEDTRACE_HISTOGRAM_H

#include <stdint.h>

#define HIST_SUB_BITS 3
#define HIST_BUCKETS (8 + (64 - HIST_SUB_BITS) * 8)

struct histogram {
	uint32_t n[HIST_BUCKETS];
};

static inline unsigned histogram__bucket(uint64_t v)
{
	unsigned e;

	if (v < 8)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return 8 + (e - HIST_SUB_BITS) * 8 + (unsigned)((v >> (e - HIST_SUB_BITS)) & 7);
}

static inline void histogram__add(struct histogram *h, uint64_t v)
{
	unsigned b = histogram__bucket(v);

	if (h->n[b] != UINT32_MAX)
		h->n[b]++;
}

/* The value at quantile q (0..1) of `count` added values: the midpoint of
 * the bucket holding it, clamped into [min, max]. */
uint64_t histogram__quantile(const struct histogram *h, uint64_t count, double q, uint64_t min,
			     uint64_t max);

#endif
