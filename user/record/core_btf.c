// SPDX-License-Identifier: MIT
/* core_btf.c: see core_btf.h.  libbpf parses the kernel's 5 MB BTF (read
 * from sysfs 4 KiB per syscall) only to relocate a dozen field reads; the
 * build cut out the types those need (bpftool gen min_core_btf) and
 * embedded them with the build kernel's identity.  On that kernel they
 * relocate identically, and libbpf reads them from a memfd instead. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "record/core_btf.h"
#include "sledtrace.core_btf.h"
#include "util/fd_io.h"

#define KERNEL_BTF "/sys/kernel/btf/vmlinux"
#define KERNEL_NOTES "/sys/kernel/notes"
#define NT_GNU_BUILD_ID 3

struct core_btf {
	int fd;
	char path[40];
	char what[160];
};

static uint32_t note_word(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The GNU build id note of the running kernel, in hex; false if none. */
static bool kernel_build_id(char *hex, size_t cap)
{
	unsigned char notes[4096];
	size_t n, off = 0;
	FILE *f = fopen(KERNEL_NOTES, "rbe");

	if (!f)
		return false;
	n = fread(notes, 1, sizeof(notes), f);
	fclose(f);
	while (off + 12 <= n) {
		uint32_t namesz = note_word(notes + off), descsz = note_word(notes + off + 4);
		size_t name = off + 12, desc = name + (namesz + 3) / 4 * 4;

		if (desc > n || descsz > n - desc)
			return false;
		if (note_word(notes + off + 8) == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(notes + name, "GNU", 4)) {
			if (descsz * 2 + 1 > cap)
				return false;
			for (uint32_t i = 0; i < descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc + i]);
			return descsz > 0;
		}
		off = desc + (descsz + 3) / 4 * 4;
	}
	return false;
}

/* Same format as embed_core_btf.py's: build id, release, BTF size. */
static bool same_kernel(void)
{
	char bid[128], ident[sizeof(bid) + sizeof(((struct utsname *)0)->release) + 32];
	struct utsname u;
	struct stat st;

	if (!core_btf_size || !kernel_build_id(bid, sizeof(bid)) || uname(&u) ||
	    stat(KERNEL_BTF, &st))
		return false;
	snprintf(ident, sizeof(ident), "%s %s %lld", bid, u.release, (long long)st.st_size);
	return !strcmp(ident, core_btf_kernel);
}

static int embed(struct core_btf *cb)
{
	int err;

	cb->fd = memfd_create("sledtrace-core-btf", MFD_CLOEXEC);
	if (cb->fd < 0)
		return -errno;
	if ((err = fd_io__write_all(cb->fd, core_btf_data, core_btf_size)))
		return err;
	snprintf(cb->path, sizeof(cb->path), "/proc/self/fd/%d", cb->fd);
	/* libbpf opens it by that name: without /proc, the kernel's BTF. */
	return access(cb->path, R_OK) ? -errno : 0;
}

int core_btf__new(struct core_btf **out)
{
	struct core_btf *cb = calloc(1, sizeof(*cb));
	int err;

	if (!cb)
		return -ENOMEM;
	cb->fd = -1;
	if (!core_btf_size) {
		snprintf(cb->what, sizeof(cb->what), "%s (none embedded: built without it)",
			 KERNEL_BTF);
	} else if (!same_kernel()) {
		snprintf(cb->what, sizeof(cb->what), "%s (the embedded BTF is another kernel's)",
			 KERNEL_BTF);
	} else if ((err = embed(cb))) {
		snprintf(cb->what, sizeof(cb->what), "%s (embedded BTF unusable: %s)", KERNEL_BTF,
			 strerror(-err));
		if (cb->fd >= 0)
			close(cb->fd);
		cb->fd = -1;
		cb->path[0] = 0;
	} else {
		snprintf(cb->what, sizeof(cb->what),
			 "embedded minimal BTF (%lu bytes, this kernel's)", core_btf_size);
	}
	*out = cb;
	return 0;
}

const char *core_btf__path(const struct core_btf *cb)
{
	return cb->path[0] ? cb->path : NULL;
}

const char *core_btf__describe(const struct core_btf *cb)
{
	return cb->what;
}

void core_btf__free(struct core_btf *cb)
{
	if (!cb)
		return;
	if (cb->fd >= 0)
		close(cb->fd);
	free(cb);
}
