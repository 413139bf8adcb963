/* SPDX-License-Identifier: MIT */
/* perfetto_states.h: the reader's side of thread states.  A track named
 * PERFETTO_STATE_TRACK whose parent is a thread track holds that thread's
 * states, a slice each (perfetto_layout.h).  The begin of each slice is a
 * scheduler switch, handed to the frame model (frame_builder__sched) in
 * file order with the thread's calls; its end says nothing the next begin
 * does not.  A first slice that says the thread runs is not a switch: the
 * model has every thread running from its first event. */
#ifndef SLEDTRACE_PERFETTO_STATES_H
#define SLEDTRACE_PERFETTO_STATES_H

#include <stdint.h>

#include "model/frames.h"
#include "perfetto_trace.pb-c.h"

struct perfetto_states;

struct perfetto_states *perfetto_states__new(void);
void perfetto_states__free(struct perfetto_states *ps);
/* Notes td when it describes a state track; 0 or -ENOMEM. */
int perfetto_states__describe(struct perfetto_states *ps,
			      const Perfetto__Protos__TrackDescriptor *td);
/* The parent track of state track uuid (its thread's track, if the trace
 * is right), or 0 when uuid is no state track. */
uint64_t perfetto_states__owner(const struct perfetto_states *ps, uint64_t uuid);
/* A slice named name (NULL: unnamed) begins at ts on state track uuid,
 * whose thread is t.  A name that is no thread state is ignored. */
int perfetto_states__begin(struct perfetto_states *ps, struct frame_builder *fb,
			   struct fb_thread *t, uint64_t uuid, const char *name, uint64_t ts);

#endif
