/* SPDX-License-Identifier: MIT */
/* perfetto_args.h: what the reader takes from a track event's debug
 * annotations (its args in the UI): the writer's own fields by name, a
 * frame's captured values, a frame's cause (perfetto_layout.h). */
#ifndef SLEDTRACE_PERFETTO_ARGS_H
#define SLEDTRACE_PERFETTO_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frames.h"
#include "perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TrackEvent perfetto_event;

/* The annotation called name: its uint (0), bool (false) or string (NULL)
 * value, or that when there is none. */
uint64_t perfetto_args__uint(const perfetto_event *ev, const char *name);
bool perfetto_args__bool(const perfetto_event *ev, const char *name);
const char *perfetto_args__str(const perfetto_event *ev, const char *name);
/* The captured values an END carries (record --capture: "args.NAME" and
 * "return"), onto the frame it ends, typed back.  te may be NULL. */
int perfetto_args__values(struct fb_thread *t, const perfetto_event *te);
/* A BEGIN's cause, if it has one, for the frame it begins. */
void perfetto_args__cause(struct fb_thread *t, const perfetto_event *te);

#endif
