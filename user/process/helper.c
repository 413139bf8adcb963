// SPDX-License-Identifier: MIT
/* helper.c: see helper.h. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "process/helper.h"

/* Room for the task and, in the sanitizer build, its interceptors. */
#define HELPER_STACK (256 * 1024)

pid_t helper__start(int (*fn)(void *arg), void *arg, bool share_fds)
{
	int flags = CLONE_VM | CLONE_VFORK | SIGCHLD | (share_fds ? CLONE_FILES : 0);
	char *stack = malloc(HELPER_STACK);
	pid_t pid;

	if (!stack)
		return -ENOMEM;
	/* Returns once the child has exec'd or exited: its stack is free. */
	pid = clone(fn, stack + HELPER_STACK, flags, arg);
	if (pid < 0)
		pid = -errno;
	free(stack);
	return pid;
}

int helper__wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -ECHILD;
}

int helper__run(int (*fn)(void *arg), void *arg, bool share_fds)
{
	pid_t pid = helper__start(fn, arg, share_fds);

	return pid < 0 ? pid : helper__wait(pid);
}
