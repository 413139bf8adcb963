// SPDX-License-Identifier: MIT
/* debuginfo.c: see debuginfo.h.  The package that owns a file is asked of
 * dpkg (`dpkg -S`), run directly (no shell) with its output read through a
 * pipe; without dpkg the message just leaves the package out. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "object/debuginfo.h"

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The file name in .gnu_debuglink, or NULL. */
static const char *debuglink(const struct elf_object *obj)
{
	Elf *elf = elf_object__elf(obj);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gnu_debuglink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_size > 1 && memchr(d->d_buf, 0, d->d_size))
			return d->d_buf;
	}
	return NULL;
}

#define MAX_CANDIDATES 4

/* Where obj's debug file may be, in the order gdb looks. */
static size_t candidates(const struct elf_object *obj, const char *root,
			 char out[MAX_CANDIDATES][PATH_MAX])
{
	const char *bid = elf_object__build_id(obj), *link = debuglink(obj);
	char dirbuf[PATH_MAX], real[PATH_MAX];
	const char *dir;
	size_t n = 0;

	snprintf(dirbuf, sizeof(dirbuf), "%s",
		 realpath(elf_object__path(obj), real) ? real : elf_object__path(obj));
	dir = dirname(dirbuf);
	if (strlen(bid) > 2)
		snprintf(out[n++], PATH_MAX, "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
	if (link && !strchr(link, '/')) {
		snprintf(out[n++], PATH_MAX, "%s/%s", dir, link);
		snprintf(out[n++], PATH_MAX, "%s/.debug/%s", dir, link);
		snprintf(out[n++], PATH_MAX, "%s%s/%s", root, dir, link);
	}
	return n;
}

/* The Debian package that owns path, via `dpkg -S`; "" when none. */
static void owner_of(const char *path, char *pkg, size_t len)
{
	int fds[2], status;
	ssize_t n = 0;
	pid_t pid;

	pkg[0] = 0;
	if (pipe2(fds, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(fds[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		execlp("dpkg", "dpkg", "-S", "--", path, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if (pid > 0)
		n = read(fds[0], pkg, len - 1);
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    n <= 0) {
		pkg[0] = 0;
		return;
	}
	pkg[n] = 0;
	/* "coreutils: /bin/true" or "libc6:amd64: /lib/..." */
	pkg[strcspn(pkg, ":, \n")] = 0;
}

/* dpkg knows a merged-/usr file by its /bin or /lib name. */
static void package_of(const char *path, char *pkg, size_t len)
{
	char real[PATH_MAX];

	owner_of(path, pkg, len);
	if (!*pkg && realpath(path, real)) {
		owner_of(real, pkg, len);
		if (!*pkg && !strncmp(real, "/usr/", 5))
			owner_of(real + 4, pkg, len);
	}
}

static int not_found(const struct elf_object *obj, const char *where, char *err, size_t errlen)
{
	char pkg[256];

	package_of(elf_object__path(obj), pkg, sizeof(pkg));
	snprintf(err, errlen,
		 "%s is stripped and its debug symbols are not installed (looked for %s): "
		 "install %s%s, or point --debug-dir at them",
		 elf_object__path(obj), where, *pkg ? pkg : "them",
		 *pkg ? "-dbgsym from the debian-debug archive" : "");
	return -ENOENT;
}

int debuginfo__load(struct elf_object *obj, const char *root, char *found, size_t foundlen,
		    char *err, size_t errlen)
{
	char paths[MAX_CANDIDATES][PATH_MAX];
	size_t n;

	found[0] = 0;
	if (elf_object__has_symtab(obj))
		return 0;
	n = candidates(obj, root, paths);
	for (size_t i = 0; i < n; i++) {
		int ret;

		if (!is_file(paths[i]))
			continue;
		ret = elf_object__add_debug_symbols(obj, paths[i], err, errlen);
		if (!ret)
			snprintf(found, foundlen, "%s", paths[i]);
		return ret;
	}
	return not_found(obj, n ? paths[0] : "a build-id or a .gnu_debuglink", err, errlen);
}
