/* SPDX-License-Identifier: MIT */
/* collector.h: turns raw sled events from the ring buffer into frames.
 * Exits are matched to entries by the stack pointer (the return-address
 * slot), not by position, so a lost exit (longjmp, an exception, the
 * uretprobe depth cap) can never mis-pair the frames around it: the first
 * later event whose stack pointer proves a frame is gone closes it. */
#ifndef SLEDTRACE_COLLECTOR_H
#define SLEDTRACE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"
#include "select/capture.h"
#include "sledtrace.h"

struct collector;

struct collector_object {
	uint32_t fid_base; /* trace function id = fid_base + XRay id */
	uint32_t nfuncs;
	/* record --capture: how each function's captured values are shown, by
	 * XRay id; NULL: none (not owned) */
	const struct capture_fn *const *capture;
};

/* Where names and command lines came from when the kernel sent none. */
struct collector_names {
	uint64_t from_proc; /* read from /proc */
	uint64_t unknown;   /* gone before anyone read them: "?" */
};

int collector__new(struct frame_builder *fb, struct collector **out);
void collector__free(struct collector *c);
/* Object index i (the cookie's object field) is the i-th call. */
int collector__add_object(struct collector *c, const struct collector_object *obj);
/* Names the threads of a running process (a -p target) from /proc now,
 * before any of them can end unseen; negative errno only for ENOMEM. */
int collector__seed(struct collector *c, uint32_t tgid);
/* The kind of a ring-buffer record (SLED_KIND_*), or SLED_KIND_MAX when
 * it is shorter than its kind's struct or of no kind sledtrace knows. */
unsigned collector__kind(const void *rec, size_t size);
/* Consumes one record of `size` bytes (include/sledtrace.h); negative
 * errno only for failures of the sink. */
int collector__event(struct collector *c, const void *rec, size_t size);
/* The kernel's filter held back the entries of a thread's open calls
 * (`--min-duration`) and sledtrace detached from it: `n` entries, bottom
 * first, and its latest call event (last_ts), up to which its open frames
 * last.  Not events of the ring: not counted as such. */
int collector__held_back(struct collector *c, const struct sled_call *entries, uint32_t n,
			 uint64_t last_ts);
/* Counters so far (events, unmatched exits, inferred exits). */
const struct trace_stats *collector__stats(const struct collector *c);
const struct collector_names *collector__names(const struct collector *c);
/* How many distinct functions were entered. */
/* A forked child's next frame has as cause its parent's innermost frame at
 * the fork (threads' spawns and wakeups come as their own records). */
void collector__causes(struct collector *c);
/* record --costs: cost records are charged to frames, and voluntary
 * switches counted (costs.c). */
void collector__costs(struct collector *c);
uint64_t collector__functions_hit(const struct collector *c);

#endif
