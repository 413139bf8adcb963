/* SPDX-License-Identifier: MIT */
/* perfetto_recording.h: what the Perfetto writer and reader tests share.
 * generate() plays one synthetic recording into a sink through a
 * frame_builder: 300 functions (two objects, one without a build-id, some
 * without identity or source file), three threads in two processes, a
 * recursion deeper than the writer writes, calls left open and an
 * unmatched exit.  write_trace() writes it as a Perfetto file, and the
 * counting sink (struct counts) gives what a stream holds in numbers a
 * test compares: per function, per thread, stats. */
#ifndef SLEDTRACE_TEST_PERFETTO_RECORDING_H
#define SLEDTRACE_TEST_PERFETTO_RECORDING_H

#include <stdbool.h>
#include <stdint.h>

#include "format/perfetto/perfetto_writer.h"
#include "model/frames.h"

#define NFUNCS 300
#define MAXF (NFUNCS + 8)
#define DEEP 600 /* recursion depth, beyond the writer's 512 */
#define BASE_TS 1000000000000ULL

struct counts {
	uint32_t cap; /* >0: count like the writer (deeper frames are elided) */
	char *name[MAXF], *file[MAXF], *mangled[MAXF], *object[MAXF], *build_id[MAXF];
	uint32_t line[MAXF];
	uint64_t addr[MAXF];
	uint64_t calls[MAXF], total[MAXF], begin_sum[MAXF];
	uint64_t el_calls[MAXF], el_total[MAXF];
	uint64_t enters, leaves, inferred, threads, max_depth;
	char thread_names[512];
	struct trace_stats st;
	int nstats, nfinish;
};

extern const struct frame_sink_ops counting_ops;
/* The stats generate() hands to finish(). */
extern const struct trace_stats input_stats;

void counts_free(struct counts *c);
/* The id the function called name has in c, 0 if none. */
uint32_t id_by_name(const struct counts *c, const char *name);
/* Reads the trace at path into c; fails the test if it cannot. */
void read_into(const char *path, struct counts *c);
/* Plays the synthetic recording into sink. */
void generate(const struct frame_sink *sink);
/* gz: through a gzip stream onto the file, as record -o NAME.gz does. */
int write_trace(const char *path, const struct perfetto_writer_opts *o, bool gz);

#endif
