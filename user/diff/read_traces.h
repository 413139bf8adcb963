/* SPDX-License-Identifier: MIT */
/* read_traces.h: reads the traces of `sledtrace diff`, each through the one
 * reader into its own report (report.c), several at once on several CPUs,
 * and remembers each function's object file and each thread's name, by
 * which rows are matched across builds and runs (addresses and tids
 * differ); then hands each trace's functions and call paths to the
 * comparison (diff.h). */
#ifndef SLEDTRACE_DIFF_READ_TRACES_H
#define SLEDTRACE_DIFF_READ_TRACES_H

#include <stddef.h>
#include <stdint.h>

#include "diff/diff.h"

/* Streams the traces of both sides (paths[DIFF_BASE], paths[DIFF_HEAD])
 * into d, several at once.  Returns 0, or a negative errno with one line
 * (no newline) in err. */
int diff__read(struct diff *d, char **const paths[2], const size_t npaths[2], char *err,
	       size_t errlen);

/* After diff__read, with opts.calls_elsewhere: the calls, costs and call
 * paths of paths[side] (a trace recorded with every function probed) set
 * over that side's runs.  Returns 0, or a negative errno with one line in err. */
int diff__read_calls(struct diff *d, const char *const paths[2], char *err, size_t errlen);

#endif
