// SPDX-License-Identifier: MIT
/* needed.c: see needed.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "arch/arch.h"
#include "process/needed.h"
#include "process/helper.h"

/* The PT_INTERP of a 64-bit ELF executable, or "" when it has none. */
static int read_interp(const char *exe, char *interp, size_t len)
{
	int fd = open(exe, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;

	interp[0] = '\0';
	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return 0;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			break;
		if (ph.p_type != PT_INTERP || ph.p_filesz >= len || !ph.p_filesz)
			continue;
		if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
			interp[0] = '\0';
		else
			interp[ph.p_filesz - 1] = '\0';
		break;
	}
	close(fd);
	return 0;
}

static bool glibc_loader(const char *interp)
{
	const char *base = strrchr(interp, '/');

	return base && !fnmatch(ARCH_LOADER_GLOB, base + 1, 0);
}

struct loader_task {
	int out;
	const char *interp, *exe;
	const struct run_as *ra;
};

/* In the helper (shared memory: system calls only, hence the raw id
 * calls: glibc's setuid would signal sledtrace's threads). */
static int run_loader(void *arg)
{
	const struct loader_task *t = arg;
	char *const argv[] = { (char *)t->interp, "--list", (char *)t->exe, NULL };
	int null = open("/dev/null", O_RDWR);

	if (dup2(t->out, STDOUT_FILENO) < 0 || null < 0 || dup2(null, STDERR_FILENO) < 0 ||
	    dup2(null, STDIN_FILENO) < 0)
		return 127;
	if (t->ra && t->ra->active &&
	    (syscall(SYS_setgroups, (size_t)t->ra->ngroups, t->ra->groups) ||
	     syscall(SYS_setresgid, t->ra->gid, t->ra->gid, t->ra->gid) ||
	     syscall(SYS_setresuid, t->ra->uid, t->ra->uid, t->ra->uid)))
		return 127;
	execve(t->interp, argv, environ);
	return 127;
}

/* Reads the loader's whole answer (a few KiB) into *text. */
static int read_all(int fd, char **text)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);

	while (buf) {
		ssize_t n = read(fd, buf + len, cap - len - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (cap - len < 2) {
			char *more = realloc(buf, cap * 2);

			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
			cap *= 2;
		}
	}
	if (!buf)
		return -ENOMEM;
	buf[len] = '\0';
	*text = buf;
	return 0;
}

static int list(const char *interp, const char *exe, const struct run_as *ra, char **text)
{
	struct loader_task t = { .interp = interp, .exe = exe, .ra = ra };
	int p[2], err, status;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	t.out = p[1];
	pid = helper__start(run_loader, &t, false);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return pid;
	}
	err = read_all(p[0], text);
	close(p[0]);
	status = helper__wait(pid);
	if (!err && status) {
		free(*text);
		err = -ENOEXEC;
	}
	return err;
}

/* "\tlibx.so => /path/libx.so (0x...)": the path; other lines (the
 * loader, the vDSO, "not found") name nothing to probe. */
static int each_line(char *text, int (*fn)(const char *path, void *ctx), void *ctx)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *path = strstr(line, " => "), *end;
		int ret;

		if (!path || path[4] != '/')
			continue;
		path += 4;
		end = strstr(path, " (0x");
		if (!end)
			continue;
		*end = '\0';
		ret = fn(path, ctx);
		if (ret)
			return ret;
	}
	return 0;
}

int needed__each(const char *exe, const struct run_as *ra, int (*fn)(const char *path, void *ctx),
		 void *ctx)
{
	char interp[4096], *text = NULL;
	int err = read_interp(exe, interp, sizeof(interp));

	if (err || !glibc_loader(interp))
		return err;
	err = list(interp, exe, ra, &text);
	if (!err)
		err = each_line(text, fn, ctx);
	free(text);
	return err;
}
