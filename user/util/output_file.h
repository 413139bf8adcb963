/* SPDX-License-Identifier: MIT */
/* output_file.h: an output that appears whole or not at all.  Writers write
 * to an unnamed (or temporary) file in the destination's directory; commit
 * gives it the destination's name, abort drops it, so a failed or
 * interrupted run never leaves a half-written trace behind. */
#ifndef SLEDTRACE_OUTPUT_FILE_H
#define SLEDTRACE_OUTPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

struct output_file {
	char path[4096];
	char tmp[4096 + 16];
	int fd; /* -1 once committed or aborted */
};

int output_file__create(struct output_file *of, const char *path, char *err, size_t errlen);
int output_file__commit(struct output_file *of, char *err, size_t errlen);
void output_file__abort(struct output_file *of);
/* The whole cycle for a file written through stdio: create, write(f, ctx)
 * (returns 0 or a negative errno), commit, or abort on any failure. */
int output_file__write_stream(const char *path, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen);

#endif
