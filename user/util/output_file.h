/* SPDX-License-Identifier: MIT */
/* output_file.h: where a command's -o goes, and never more than that.
 *
 * - "-": standard output.
 * - A new or existing regular file (or a symlink to one): written whole or
 *   not at all.  Writers write to an unnamed (or temporary) file in the
 *   destination's directory; commit gives it the destination's name (the
 *   symlink's target for a symlink, which stays a symlink), abort drops it,
 *   so a failed or interrupted run never leaves a half-written file.
 * - A character device, FIFO or socket (or a symlink to one): opened for
 *   writing and streamed into, like `cat > path`; never unlinked, renamed
 *   over or replaced.  The null and zero devices are "discarding": callers
 *   may skip building what would be thrown away.
 * - A directory, a missing directory, a dangling symlink, a block device, a
 *   place that cannot be written: create fails with one message, before
 *   anything was written anywhere.
 * Messages have no "sledtrace: " prefix and no newline. */
#ifndef SLEDTRACE_OUTPUT_FILE_H
#define SLEDTRACE_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum output_kind {
	OUTPUT_ATOMIC,	/* a regular file, named at commit */
	OUTPUT_STREAM,	/* a device, FIFO or socket, written through */
	OUTPUT_DISCARD, /* /dev/null and the like: written through, nothing kept */
	OUTPUT_STDOUT,	/* "-": fd 1, never closed here */
};

struct output_file {
	char path[4096]; /* as given, for messages */
	char dest[4096]; /* what commit names (a symlink's target) */
	char tmp[4096 + 32];
	enum output_kind kind;
	int fd; /* -1 once committed or aborted */
};

int output_file__create(struct output_file *of, const char *path, char *err, size_t errlen);
static inline bool output_file__discards(const struct output_file *of)
{
	return of->kind == OUTPUT_DISCARD;
}
int output_file__commit(struct output_file *of, char *err, size_t errlen);
void output_file__abort(struct output_file *of);
/* Writes an open output through stdio: write(f, ctx) returns 0 or a
 * negative errno; then commit, or abort on any failure. */
int output_file__write_opened(struct output_file *of, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen);
/* The whole cycle: create, write, commit. */
int output_file__write_stream(const char *path, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen);

#endif
