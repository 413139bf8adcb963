/* SPDX-License-Identifier: MIT */
/* helper.h: running a short task in a child that shares sledtrace's memory
 * and sleeps it until the child exits or execs (clone with CLONE_VM and
 * CLONE_VFORK, as posix_spawn does).  Mount namespace work must happen in
 * a process of its own, and fork() copies the page tables of sledtrace's
 * whole address space (5 ms a fork in the sanitizer build); this costs a
 * fraction of that.  The task may only make system calls and write its
 * own stack or the memory arg points to. */
#ifndef SLEDTRACE_HELPER_H
#define SLEDTRACE_HELPER_H

#include <stdbool.h>
#include <sys/types.h>

/* Runs fn(arg) in the child; with share_fds, descriptors it opens are
 * sledtrace's too.  Returns fn's result (0..255, the child's exit status),
 * or a negative errno when the child could not be run. */
int helper__run(int (*fn)(void *arg), void *arg, bool share_fds);
/* The same in two steps, for a task that execs a program whose output
 * sledtrace reads before it waits: returns the pid once the task has
 * exec'd (or exited), or a negative errno. */
pid_t helper__start(int (*fn)(void *arg), void *arg, bool share_fds);
/* Reaps it: its exit status, or a negative errno (-ECHILD: killed). */
int helper__wait(pid_t pid);

#endif
