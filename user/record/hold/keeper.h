/* SPDX-License-Identifier: MIT */
/* keeper.h: a small child process that outlives sledtrace for one purpose:
 * if sledtrace dies (SIGKILL) while a traced process is stopped at a new
 * mapping, the keeper resumes it, so a killed tracer never leaves its
 * targets stopped.  It holds only the `held` map and a pipe; it closes
 * every other descriptor, so it keeps no probe attached. */
#ifndef SLEDTRACE_KEEPER_H
#define SLEDTRACE_KEEPER_H

#include <sys/types.h>

struct keeper {
	pid_t pid;    /* -1 when not running */
	int alive_fd; /* write end: EOF tells the keeper sledtrace is gone */
};

int keeper__start(struct keeper *k, int held_map_fd);
/* Resumes every process still in the held map and ends the keeper. */
void keeper__stop(struct keeper *k, int held_map_fd);

#endif
