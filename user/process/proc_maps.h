/* SPDX-License-Identifier: MIT */
/* proc_maps.h: what a running process is and which files it runs code
 * from, read from /proc: its state (alive, exited, kernel thread) and the
 * files of its executable mappings, each once, with a path that opens the
 * very file mapped (/proc/PID/map_files/...) even when it was deleted or
 * lives in another mount namespace. */
#ifndef SLEDTRACE_PROC_MAPS_H
#define SLEDTRACE_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum proc_state {
	PROC_ALIVE,
	PROC_EXITED,  /* a zombie: exited, not yet reaped */
	PROC_KTHREAD, /* a kernel thread: no user code to probe */
};

/* 0 and *state, or -ESRCH when there is no such process. */
int proc_state(pid_t pid, enum proc_state *state);

struct proc_mapping {
	char path[4096];	     /* as the process sees it (for messages) */
	char open_path[96];	     /* /proc/PID/map_files/START-END */
	uint64_t dev, ino;	     /* identity of the file */
	uint64_t start, end, offset; /* where it is mapped, and from where in the file */
};

/* st_dev in the encoding of proc_mapping.dev. */
uint64_t proc_maps__dev(dev_t dev);
/* 1 when every thread of pid is stopped (or exiting): a group stop is
 * complete; 0 while one still runs; -ESRCH when pid is gone. */
int proc_maps__all_stopped(pid_t pid);

/* Calls fn once per file mapped executable by pid (first mapping wins);
 * fn's non-zero return stops the walk and is returned.  -ESRCH when the
 * process is gone (an exited process has no mappings). */
int proc_maps__for_each_exec(pid_t pid, int (*fn)(const struct proc_mapping *m, void *ctx),
			     void *ctx);
/* The same for every executable mapping, a file mapped twice twice. */
int proc_maps__for_each_exec_mapping(pid_t pid, int (*fn)(const struct proc_mapping *m, void *ctx),
				     void *ctx);

#endif
