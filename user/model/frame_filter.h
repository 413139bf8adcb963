/* SPDX-License-Identifier: MIT */
/* frame_filter.h: a frame_sink in front of another that leaves out calls
 * nested deeper than max_depth or shorter than min_duration, counting both
 * (trace_stats.max_depth_dropped, .short_dropped).
 *
 * Streaming min-duration: a frame is held back ("pending") until either it
 * has lasted min_duration - proven by any later event of its thread - and
 * is then passed on, or it ends sooner and is dropped.  A caller always
 * lasts at least as long as its callees, so pending frames are always the
 * top of a stack and everything passed on stays properly nested.
 * Scheduler switches (sched) all pass, in time order with the frames: one
 * that comes while a frame is pending is held until that frame is passed
 * on or dropped.  Memory is a counter per thread, and the switches held
 * (those since the oldest pending frame began, until the thread's next
 * call or return decides it). */
#ifndef SLEDTRACE_FRAME_FILTER_H
#define SLEDTRACE_FRAME_FILTER_H

#include <stdint.h>

#include "model/frames.h"

struct frame_filter_opts {
	uint32_t max_depth;	  /* 0: no limit */
	uint64_t min_duration_ns; /* 0: keep all */
};

struct frame_filter;

int frame_filter__new(const struct frame_sink *down, const struct frame_filter_opts *opts,
		      struct frame_filter **out);
struct frame_sink frame_filter__sink(struct frame_filter *f);
void frame_filter__free(struct frame_filter *f);

#endif
