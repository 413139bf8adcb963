/* SPDX-License-Identifier: MIT */
/* perfetto_costs.h: a frame's costs (record --costs, model/frame_costs.h)
 * as debug annotations of its slice's END, and back.  The slice carries
 * its self counts under the names frame_costs.h gives them ("allocs",
 * ...), its inclusive ones as NAME_total where they differ, and its own
 * system calls by name as "syscall.NAME" ("syscall.nr_N" for one the
 * headers did not name): what the UI shows, and all a reader needs to
 * give every frame its counts again. */
#ifndef SLEDTRACE_PERFETTO_COSTS_H
#define SLEDTRACE_PERFETTO_COSTS_H

#include "format/codec/pbuf.h"
#include "model/frames.h"
#include "perfetto_args.h"

/* The annotations of c, into the TrackEvent open in b. */
void pkt_costs(struct pbuf *b, const struct frame_costs *c);
/* The costs an END carries, spent on t's innermost frame before it
 * leaves.  te may be NULL. */
int perfetto_args__costs(struct fb_thread *t, const perfetto_event *te);

#endif
