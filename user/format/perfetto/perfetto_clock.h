/* SPDX-License-Identifier: MIT */
/* perfetto_clock.h: the clocks of one packet sequence, read the way
 * trace_processor reads them (docs/FORMATS.md): ids 64-127 are the
 * sequence's own, defined by a ClockSnapshot against BOOTTIME, and an
 * incremental one adds each packet's delta in file order; builtin clocks
 * (BOOTTIME and the others) are taken as they are. */
#ifndef SLEDTRACE_PERFETTO_CLOCK_H
#define SLEDTRACE_PERFETTO_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "perfetto_trace.pb-c.h"

struct perfetto_seq_clock;

struct perfetto_clocks {
	struct perfetto_seq_clock *own; /* 64..127, allocated on first snapshot */
	bool has_default;		/* the sequence's TracePacketDefaults name one */
	uint32_t default_id;
};

/* Defines the sequence clocks cs names; 0 or -ENOMEM. */
int perfetto_clocks__snapshot(struct perfetto_clocks *cl,
			      const Perfetto__Protos__ClockSnapshot *cs);
/* Boot-time ns of a packet's timestamp on clock_id (without one, the
 * sequence's default, else BOOTTIME); false when that clock is undefined
 * here.  An incremental clock advances. */
bool perfetto_clocks__time(struct perfetto_clocks *cl, bool has_clock_id, uint32_t clock_id,
			   uint64_t timestamp, uint64_t *ts);
/* Forgets everything (incremental state cleared). */
void perfetto_clocks__reset(struct perfetto_clocks *cl);

#endif
