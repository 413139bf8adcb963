// SPDX-License-Identifier: MIT
/* attach_warm.c: see attach_warm.h.  The helper repeats its registration
 * every few milliseconds: the lock falls back to its slow mode one grace
 * period after its last writer, and sledtrace's attach may come tens of
 * milliseconds after the helper started (opening a large object). */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/attach_warm.h"

#define WARM_EVERY_MS 3
#define WARM_MAX_LINKS 700 /* ~2 s of repeats; each link is an fd */

struct attach_warm {
	int stop_fd;
};

/* A program that does nothing, for uprobe_multi links. */
static int noop_prog(enum bpf_attach_type *multi)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	enum bpf_prog_type type;
	LIBBPF_OPTS(bpf_prog_load_opts, po);

	if (libbpf_prog_type_by_name("uprobe.multi", &type, multi))
		return -1;
	po.expected_attach_type = *multi;
	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &po);
}

/* The probes sit at offset 0 of a memfd that no process maps, filtered to
 * the helper (which does not map it either): nothing is ever patched. */
static void helper_main(int stop_fd)
{
	char path[40], c = 0;
	enum bpf_attach_type multi;
	unsigned long offset = 0;
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	int file, prog, last = -1;

	if (stop_fd != 3) {
		dup2(stop_fd, 3);
		pfd.fd = 3;
	}
	syscall(SYS_close_range, 0, 2, 0);
	syscall(SYS_close_range, 4, ~0u, 0);
	file = memfd_create("sledtrace-warm", MFD_CLOEXEC);
	prog = noop_prog(&multi);
	if (file < 0 || prog < 0 || write(file, &c, 1) != 1)
		_exit(0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", file);
	for (int i = 0; i < WARM_MAX_LINKS; i++) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .uprobe_multi.path = path,
			    .uprobe_multi.offsets = &offset, .uprobe_multi.cnt = 1,
			    .uprobe_multi.pid = getpid());
		int link = bpf_link_create(prog, 0, multi, &lo);

		if (link < 0)
			break;
		/* Only the newest link is kept: each one's teardown waits for
		 * grace periods, and hundreds left to the exit kept the lock
		 * busy for a second or more, into the next run's attach.  The
		 * close is a writer of the lock too, so it keeps it warm. */
		if (last >= 0)
			close(last);
		last = link;
		if (poll(&pfd, 1, WARM_EVERY_MS) != 0)
			break; /* told to stop, or sledtrace is gone (EOF, error) */
	}
	_exit(0); /* the last link goes with the process, in its own time */
}

struct attach_warm *attach_warm__start(void)
{
	struct attach_warm *w = calloc(1, sizeof(*w));
	int p[2];
	pid_t pid;

	if (!w)
		return NULL;
	if (pipe2(p, O_CLOEXEC)) {
		free(w);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		helper_main(p[0]);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		free(w);
		return NULL;
	}
	w->stop_fd = p[1];
	return w;
}

void attach_warm__stop(struct attach_warm *w)
{
	char c = 's';

	if (!w)
		return;
	if (write(w->stop_fd, &c, 1) < 0) {
		/* the helper is gone already: nothing to stop */
	}
	close(w->stop_fd);
	free(w);
}
