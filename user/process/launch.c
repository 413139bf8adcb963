// SPDX-License-Identifier: MIT
/* launch.c: see launch.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "process/launch.h"
#include "process/scratch_copy.h"

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

static int mount_copy(int copy_fd, int target_fd)
{
	char src[64], dst[64];
	const char *dir = NULL;
	int dir_fd = scratch__mount(&dir), e;

	if (dir_fd < 0)
		return -dir_fd;
	e = scratch__write(copy_fd, dir_fd);
	snprintf(src, sizeof(src), "/proc/self/fd/%d/copy", dir_fd);
	snprintf(dst, sizeof(dst), "/proc/self/fd/%d", target_fd);
	if (!e && mount(src, dst, NULL, MS_BIND, NULL))
		e = errno;
	close(dir_fd);
	if (umount2(dir, MNT_DETACH) && !e)
		e = errno;
	return e;
}

/* A private mount namespace for this process and what it starts: made
 * recursively private so that no mount propagates out. */
static int private_ns(void)
{
	if (unshare(CLONE_NEWNS))
		return errno;
	if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return errno;
	return 0;
}

/* Makes path name the copy, for this process and what it starts only: a
 * private mount namespace (so nothing propagates out), the copy bound over
 * path.  The namespace goes away with the last process in it, so nothing
 * stays mounted even if sledtrace is killed.  Returns 0 or an errno. */
static int bind_copy(int copy_fd, const char *path)
{
	int target_fd, e = private_ns();

	if (e)
		return e;
	target_fd = open(path, O_PATH | O_CLOEXEC);
	if (target_fd < 0)
		return errno;
	e = mount_copy(copy_fd, target_fd);
	close(target_fd);
	return e;
}

/* A run nobody asked to see (record --budget's counting pass): its
 * standard streams on /dev/null.  Returns 0 or an errno. */
static int silence(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return errno;
	for (int i = 0; i < 3; i++)
		if (dup2(fd, i) < 0)
			return errno;
	close(fd);
	return 0;
}

static void __attribute__((noreturn))
child(int gate, int errw, const char *path, char *const argv[], const struct run_as *ra,
      int copy_fd, bool own_ns, bool silent)
{
	char go;
	int e;

	if (copy_fd >= 0 || own_ns) {
		e = copy_fd >= 0 ? bind_copy(copy_fd, path) : private_ns();
		if (write(errw, &e, sizeof(e)) != (ssize_t)sizeof(e))
			_exit(127);
		if (copy_fd >= 0)
			close(copy_fd);
	}
	if (read(gate, &go, 1) != 1)
		_exit(127); /* sledtrace went away: never run untraced */
	close(gate);
	sigaction(SIGPIPE, &inherited_sigpipe, NULL);
	e = silent ? silence() : 0;
	if (!e)
		e = -run_as__apply(ra);
	if (!e) {
		execv(path, argv);
		e = errno;
	}
	if (write(errw, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

/* The child's verdict on the bind mount, before anything else it says. */
static int read_bind_result(struct launch *l)
{
	int e = 0;
	ssize_t n;

	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(e))
		return -ECHILD;
	l->bind_err = -e;
	if (!e) {
		char ns[64];

		snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)l->pid);
		l->ns_fd = open(ns, O_RDONLY | O_CLOEXEC);
		if (l->ns_fd < 0)
			l->bind_err = -errno;
	}
	return 0;
}

int launch__spawn(struct launch *l, const char *path, char *const argv[])
{
	return launch__spawn_over(l, path, argv, -1);
}

int launch__spawn_over(struct launch *l, const char *path, char *const argv[], int copy_fd)
{
	int gate[2], errp[2];

	l->pid = -1;
	l->bind_err = -ENOENT;
	l->pidfd = l->gate_fd = l->err_fd = l->ns_fd = -1;
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
		child(gate[0], errp[1], path, argv, l->run_as, copy_fd, l->private_ns, l->silent);
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
	return copy_fd >= 0 || l->private_ns ? read_bind_result(l) : 0;
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
	struct rusage ru;
	int status;

	while (wait4(l->pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return 1;
	l->cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
		    (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
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
	if (l->ns_fd >= 0)
		close(l->ns_fd);
	l->pid = -1;
	l->ns_fd = -1;
}
