/* SPDX-License-Identifier: MIT */
/* perfetto_reader.h: streams a Perfetto trace file into a frame_sink,
 * through a frame_builder.  It applies trace_processor's rules (see
 * docs/FORMATS.md), so what it gives back is what trace_processor would show:
 * slices per thread track, names merged into one function id per distinct
 * name, plus sledtrace's elided records and stats when the trace has them. */
#ifndef SLEDTRACE_PERFETTO_READER_H
#define SLEDTRACE_PERFETTO_READER_H

#include <stddef.h>

#include "model/frames.h"

/* What the reader trusts: one outer packet (ours are ~64 KiB; protobuf-c
 * allocates a struct per repeated entry, so a huge packet of tiny entries
 * could cost gigabytes), and one inflated compressed_packets. */
#define PERFETTO_MAX_PACKET (16u << 20)
#define PERFETTO_MAX_CHUNK (32u << 20)

/* path "-" reads standard input.  Returns 0, or a negative errno with one line (no newline) in err:
 * "PATH: truncated at byte N", "PATH: corrupt packet at byte N", ...
 * Errors from the sink are passed back the same way.  A sink with a
 * probe_cost op is handed the trace's probe cost first: the file is read
 * twice (perfetto_cost.c, which has this function and calls the one below;
 * perfetto_reader.c calls nothing back). */
int perfetto_reader__read(const char *path, const struct frame_sink *sink, char *err,
			  size_t errlen);
/* The same from an open descriptor, which it closes; name stands for it in
 * err.  No probe_cost is handed over. */
int perfetto_reader__read_fd(int fd, const char *name, const struct frame_sink *sink, char *err,
			     size_t errlen);

#endif
