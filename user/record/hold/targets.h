/* SPDX-License-Identifier: MIT */
/* targets.h: the running processes of `record -p PID[,PID...]`.  Each is
 * checked (exists, is a user process, has not exited), pinned with a pidfd
 * (so a recycled pid is never mistaken for it, and its exit can be waited
 * for), and its objects with sleds are found in /proc/PID/maps. */
#ifndef SLEDTRACE_TARGETS_H
#define SLEDTRACE_TARGETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/hold/objects.h"

struct targets {
	pid_t *pids;
	int *pidfds; /* readable once that process has exited */
	size_t n;
	uint64_t *cpu_ns; /* by target: its CPU time when last read */
};

/* Checks and pins every pid; err names the first bad one. */
int targets__open(struct targets *t, const pid_t *pids, size_t n, char *err, size_t errlen);
/* Adds the objects with sleds every target maps to s.  A target mapping
 * none is an error (-ENODATA). */
int targets__discover(struct targets *t, struct object_set *s, bool follow, char *err,
		      size_t errlen);
/* -ESRCH, with err naming it, when a target has exited by now. */
int targets__check_alive(const struct targets *t, char *err, size_t errlen);
/* The same after an attach failed with ESRCH or ENOENT: a target that is
 * exiting has lost its memory or mappings (so its map_files links fail)
 * before it counts as exited, so this waits up to wait_ms for the exit to
 * complete. */
int targets__check_exiting(const struct targets *t, int wait_ms, char *err, size_t errlen);
/* The CPU time the targets have used so far, all threads, in ns (clock
 * ticks' resolution); an exited target counts what it had when last
 * asked. */
uint64_t targets__cpu_ns(struct targets *t);
/* How many targets are still running. */
size_t targets__alive(const struct targets *t);
void targets__close(struct targets *t);

#endif
