// SPDX-License-Identifier: MIT
/* keeper.c: see keeper.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <bpf/bpf.h>

#include "record/hold/keeper.h"

#define KEEPER_PIPE 3
#define KEEPER_MAP 4

static void resume_held(int map_fd)
{
	uint32_t key, next, *prev = NULL;

	while (!bpf_map_get_next_key(map_fd, prev, &next)) {
		kill((pid_t)next, SIGCONT);
		key = next;
		prev = &key;
	}
}

static void __attribute__((noreturn)) keeper_main(int pipe_r, int map_fd)
{
	struct timespec ts = { 0, 100 * 1000000 };
	int r = fcntl(pipe_r, F_DUPFD, 100), m = fcntl(map_fd, F_DUPFD, 100);
	char c = 0;

	/* The terminal's signals are for sledtrace and the command. */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	if (r < 0 || m < 0 || dup2(r, KEEPER_PIPE) < 0 || dup2(m, KEEPER_MAP) < 0)
		_exit(1);
	syscall(SYS_close_range, KEEPER_MAP + 1, ~0u, 0);
	while (read(KEEPER_PIPE, &c, 1) < 0 && errno == EINTR)
		;
	if (c == 'q')
		_exit(0); /* sledtrace resumed everything itself */
	/* sledtrace's links close with its other descriptors; a program
	 * still running then may stop one more process: look twice. */
	resume_held(KEEPER_MAP);
	nanosleep(&ts, NULL);
	resume_held(KEEPER_MAP);
	_exit(0);
}

int keeper__start(struct keeper *k, int held_map_fd)
{
	int p[2];

	k->pid = -1;
	k->alive_fd = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	k->pid = fork();
	if (k->pid == 0)
		keeper_main(p[0], held_map_fd);
	close(p[0]);
	if (k->pid < 0) {
		close(p[1]);
		return -errno;
	}
	k->alive_fd = p[1];
	return 0;
}

void keeper__stop(struct keeper *k, int held_map_fd)
{
	if (k->pid <= 0)
		return;
	resume_held(held_map_fd);
	/* Should the write fail, the keeper sees EOF and looks for held
	 * processes, which is harmless. */
	(void)!write(k->alive_fd, "q", 1);
	close(k->alive_fd);
	waitpid(k->pid, NULL, 0);
	k->pid = -1;
}
