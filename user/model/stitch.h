/* SPDX-License-Identifier: MIT */
/* stitch.h: stitched stacks (convert --stitch, docs/DESIGN.md "Causes"):
 * a frame that has a cause is drawn under its cause's stack, and that
 * stack under its own first cause, and so on, so that the work a thread
 * did for a call on another thread sits under that call.
 *
 * A trace's threads may be read in any order, so a caused frame can come
 * before its cause.  Hence two reads: the first (stitch__sink) keeps, for
 * every frame that caused something, its link - its thread's frames from
 * its nearest caused ancestor (itself included) up to it, and that
 * ancestor's cause - and the second draws each caused frame under the
 * stitched path of its cause (calltree__stitch).  Memory is one link per
 * causing frame, not the trace. */
#ifndef SLEDTRACE_STITCH_H
#define SLEDTRACE_STITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frames.h"

struct stitch_link {
	uint64_t cause;	 /* the cause of fids[0]'s frame; 0: fids[0] is its thread's first */
	uint32_t thread; /* the causing frame's thread index */
	uint32_t n;	 /* frames in fids, outermost first; the last is the causing one */
	uint32_t *fids;
};

struct stitch;

/* Whether stack[i] is drawn under its cause.  A wakeup inside a frame a
 * hand-off caused is not: the hand-off names the very job, and a worker
 * woken while it runs (a latch, a lock) does not make the job's rest
 * another's. */
bool stitch__follows(const struct frame *stack, uint32_t i);

int stitch__new(struct stitch **out);
void stitch__free(struct stitch *s);
/* The first read's sink: it takes the links at the points where causes
 * happened (frame_sink_ops.cause), and nothing else. */
struct frame_sink stitch__sink(struct stitch *s);
/* The link of the frame with id frame_id, or NULL when it caused nothing
 * the first read saw (its point was not recorded: the frame it caused is
 * then drawn where it ran). */
const struct stitch_link *stitch__link(const struct stitch *s, uint64_t frame_id);

#endif
