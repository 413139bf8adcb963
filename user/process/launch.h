/* SPDX-License-Identifier: MIT */
/* launch.h: starting the traced command so that no instruction of it runs
 * untraced.  The child is forked first and waits on a pipe; the probes are
 * attached to its pid; only then is it released to exec the command.  If
 * sledtrace dies before releasing it, the child exits without running. */
#ifndef SLEDTRACE_LAUNCH_H
#define SLEDTRACE_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "process/run_as.h"

struct launch {
	pid_t pid;
	int pidfd;		     /* readable once the child has exited */
	int gate_fd;		     /* write end: one byte releases the child */
	int err_fd;		     /* read end: the child's exec errno, EOF on success */
	const struct run_as *run_as; /* set before spawn; NULL: keep our identity */
	int bind_err;		     /* launch__spawn_over: 0 when path names the copy */
	bool private_ns;	     /* set before spawn: a private mount namespace always */
	int ns_fd;		     /* the child's mount namespace when private, else -1 */
	bool silent;		     /* set before spawn: stdin, stdout, stderr on /dev/null */
	uint64_t cpu_ns;	     /* launch__wait: the child's tree's CPU time (rusage) */
};

/* Finds the executable like execvp would: a name without '/' is looked up
 * in PATH.  Returns 0 or -ENOENT/-EACCES. */
int launch__resolve(const char *cmd, char *path, size_t len);
/* With l->private_ns the child enters a private mount namespace first
 * (launch__spawn_over with no copy), so that copies can be bound in it
 * later (ns_copy.h): l->ns_fd is then open, or l->bind_err says why not. */
int launch__spawn(struct launch *l, const char *path, char *const argv[]);
/* Like launch__spawn, but the child first enters a private mount namespace
 * and binds the file open as copy_fd over path, so that it execs the copy
 * under the original name (sled_rewrite.h).  l->bind_err is then 0, or the
 * negative errno of unshare/mount (the child runs the original: the
 * caller falls back).  Returns a negative errno only when the child could
 * not be started or did not answer. */
int launch__spawn_over(struct launch *l, const char *path, char *const argv[], int copy_fd);
/* Releases the child; returns 0 once it has exec'd, or the negative errno
 * of its failed exec (the child is then reaped). */
int launch__release(struct launch *l);
/* Waits for the child; returns its exit status as a shell reports it
 * (128 + N for a signal N), and sets l->cpu_ns. */
int launch__wait(struct launch *l);
/* Kills and reaps a child that was never released. */
void launch__abort(struct launch *l);
/* sledtrace ignores SIGPIPE so that a closed output is a write error, not
 * death; commands it launches get back the disposition it started with. */
void launch__ignore_sigpipe(void);

#endif
