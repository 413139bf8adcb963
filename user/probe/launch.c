// SPDX-License-Identifier: MIT
/* launch.c: see launch.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "probe/launch.h"

static int check_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	return access(path, X_OK) ? -errno : 0;
}

int launch__resolve(const char *cmd, char *path, size_t len)
{
	const char *env = getenv("PATH");
	int err = -ENOENT;

	if (strchr(cmd, '/')) {
		snprintf(path, len, "%s", cmd);
		return check_exec(path);
	}
	if (!env)
		env = "/usr/local/bin:/usr/bin:/bin";
	while (*env) {
		const char *end = strchrnul(env, ':');
		int dirlen = (int)(end - env);

		snprintf(path, len, "%.*s/%s", dirlen, dirlen ? env : ".", cmd);
		if (!check_exec(path))
			return 0;
		if (errno == EACCES)
			err = -EACCES;
		env = *end ? end + 1 : end;
	}
	return err;
}

/* The SIGPIPE disposition sledtrace was started with, for its children. */
static struct sigaction inherited_sigpipe = { .sa_handler = SIG_DFL };

void launch__ignore_sigpipe(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &inherited_sigpipe);
}

static void __attribute__((noreturn))
child(int gate, int errw, const char *path, char *const argv[], const struct run_as *ra)
{
	char go;
	int e;

	if (read(gate, &go, 1) != 1)
		_exit(127); /* sledtrace went away: never run untraced */
	close(gate);
	sigaction(SIGPIPE, &inherited_sigpipe, NULL);
	e = -run_as__apply(ra);
	if (!e) {
		execv(path, argv);
		e = errno;
	}
	if (write(errw, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int launch__spawn(struct launch *l, const char *path, char *const argv[])
{
	int gate[2], errp[2];

	l->pid = -1;
	l->pidfd = l->gate_fd = l->err_fd = -1;
	if (pipe2(gate, O_CLOEXEC))
		return -errno;
	if (pipe2(errp, O_CLOEXEC)) {
		int e = errno;

		close(gate[0]);
		close(gate[1]);
		return -e;
	}
	l->pid = fork();
	if (l->pid == 0) {
		close(gate[1]);
		close(errp[0]);
		child(gate[0], errp[1], path, argv, l->run_as);
	}
	close(gate[0]);
	close(errp[1]);
	l->gate_fd = gate[1];
	l->err_fd = errp[0];
	if (l->pid < 0) {
		int e = errno;

		close(gate[1]);
		close(errp[0]);
		return -e;
	}
	l->pidfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	return 0;
}

int launch__release(struct launch *l)
{
	int e = 0;
	ssize_t n;

	n = write(l->gate_fd, "g", 1);
	close(l->gate_fd);
	l->gate_fd = -1;
	if (n != 1)
		return -EPIPE;
	n = read(l->err_fd, &e, sizeof(e));
	close(l->err_fd);
	l->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(l->pid, NULL, 0);
		return -e;
	}
	return 0;
}

int launch__wait(struct launch *l)
{
	int status;

	while (waitpid(l->pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->pidfd = -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void launch__abort(struct launch *l)
{
	if (l->pid <= 0)
		return;
	if (l->gate_fd >= 0)
		close(l->gate_fd); /* the child sees EOF and exits unrun */
	if (l->err_fd >= 0)
		close(l->err_fd);
	waitpid(l->pid, NULL, 0);
	if (l->pidfd >= 0)
		close(l->pidfd);
	l->pid = -1;
}
