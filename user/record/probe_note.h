/* SPDX-License-Identifier: MIT */
/* probe_note.h: record's one line on stderr when the run's times are
 * mostly probe cost: which functions hold the most of it in their self
 * time, and that --budget gives real times while counts stay exact.  The
 * estimate is model/probe_comp.h's, from the frame builder's per-function
 * tally of calls and direct children (frame_builder__tally). */
#ifndef SLEDTRACE_PROBE_NOTE_H
#define SLEDTRACE_PROBE_NOTE_H

#include <stdio.h>

#include "model/frames.h"
#include "model/trace_stats.h"
#include "record/hold/objects.h"

/* The run's share of probe cost at or over which record says so. */
#define PROBE_NOTE_SHARE 0.5

/* Writes the line to f when the probes took PROBE_NOTE_SHARE or more of
 * the program's CPU time (st->program_cpu_ns; unknown: nothing said). */
void probe_note__say(const struct object_set *objs, const struct frame_builder *fb,
		     const struct trace_stats *st, FILE *f);

#endif
