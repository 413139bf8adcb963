/* SPDX-License-Identifier: MIT */
/* perfetto_writer.h: a frame_sink that streams a Perfetto trace into a
 * byte sink (a file, or a gzip stream onto one).  One packet sequence per
 * traced thread, packets batched per
 * sequence into zlib-compressed chunks, frames deeper than a cap counted
 * ("elided") instead of written, the threads' states on tracks of their
 * own, the drop statistics written last.
 * What goes where in the trace is perfetto_layout.h's. */
#ifndef SLEDTRACE_PERFETTO_WRITER_H
#define SLEDTRACE_PERFETTO_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/perfetto/perfetto_layout.h"
#include "model/frames.h"
#include "util/byte_sink.h"

struct perfetto_writer_opts {
	size_t chunk_bytes;  /* uncompressed bytes per chunk; 0: 64 KiB */
	size_t max_buffered; /* all sequences together; 0: 4 MiB */
	uint32_t max_depth;  /* 0: PERFETTO_MAX_DEPTH */
	bool plain;	     /* no compression (debugging, tests) */
};

struct perfetto_writer;

/* Writes the trace header into out at once.  opts may be NULL.  out stays
 * the caller's: the writer never closes or finishes it. */
int perfetto_writer__new(struct byte_sink out, const struct perfetto_writer_opts *opts,
			 struct perfetto_writer **w);
/* The sink's finish() flushes everything and returns the first write
 * error (-ENOSPC, -EIO...); after an error every call returns it. */
struct frame_sink perfetto_writer__sink(struct perfetto_writer *w);
/* Bytes given to the sink so far. */
uint64_t perfetto_writer__bytes(const struct perfetto_writer *w);
void perfetto_writer__free(struct perfetto_writer *w);

#endif
