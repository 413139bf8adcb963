/* SPDX-License-Identifier: MIT */
/* perfetto_ident.h: the reader's side of function identity.  sledtrace
 * writes a function's object, build-id, mangled name and address as
 * Perfetto profiling interned data (Frame, Mapping, InternedString), a
 * Frame's iid being its EventName's (docs/DESIGN.md "Trace format"); this
 * keeps those tables per sequence and answers "who is name iid N". */
#ifndef SLEDTRACE_PERFETTO_IDENT_H
#define SLEDTRACE_PERFETTO_IDENT_H

#include <stdbool.h>
#include <stdint.h>

#include "model/frames.h"
#include "perfetto_trace.pb-c.h"
#include "util/u64map.h"

/* One sequence's interning tables (values: indexes + 1 into perfetto_ident). */
struct perfetto_ident_seq {
	struct u64map fnames, bids, paths, maps, frames;
};

struct perfetto_ident;

struct perfetto_ident *perfetto_ident__new(void);
void perfetto_ident__free(struct perfetto_ident *pi);
void perfetto_ident__seq_reset(struct perfetto_ident_seq *s);
/* Adds d's strings, mappings and frames to s; 0 or -ENOMEM. */
int perfetto_ident__intern(struct perfetto_ident *pi, struct perfetto_ident_seq *s,
			   const Perfetto__Protos__InternedData *d);
/* Fills fn's mangled, object, build_id and addr from the frame with iid;
 * false (fn untouched) when s has none.  The strings live as long as pi. */
bool perfetto_ident__lookup(const struct perfetto_ident *pi, const struct perfetto_ident_seq *s,
			    uint64_t iid, struct trace_function *fn);

#endif
