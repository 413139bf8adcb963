/* SPDX-License-Identifier: MIT */
/* critical_path.h: `report --critical-path=REGEX` (docs/DESIGN.md,
 * "Causes"): for the slowest call of the functions matching REGEX, what
 * its time went to, on any thread it waited on.  Walking back from the
 * call's end on its thread: time running goes to the innermost frame that
 * ran, time waiting for a CPU is said so, and a sleep that a traced
 * thread's wakeup ended goes, up to that wakeup, to what the waker did
 * before it (and so on, back through the waker's own sleeps).  A sleep no
 * traced frame ended (an interrupt, a process outside the trace) is said
 * so.  The parts add up to the call's duration. */
#ifndef SLEDTRACE_CRITICAL_PATH_H
#define SLEDTRACE_CRITICAL_PATH_H

#include <stddef.h>
#include <stdio.h>

/* Reads the trace at path twice (it must be a file) and prints the paths
 * of the ncalls slowest calls of functions matching regex to out, slowest
 * first, each a row per (thread, what) with its time and share, largest
 * first; json: a JSON object per call, a line each.  The second read keeps
 * what happened between the first of those calls' start and the last's
 * end.  0, or a negative errno with one line in err (-ENOENT: no call
 * matches; -EINVAL: a bad regex). */
int critical_path__report(const char *path, const char *regex, size_t ncalls, int json, FILE *out,
			  char *err, size_t errlen);

#endif
