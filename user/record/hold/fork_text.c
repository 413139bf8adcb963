// SPDX-License-Identifier: MIT
/* fork_text.c: see fork_text.h.
 *
 * The kernel optimizes a uprobe on a rewritten sled after its first hit:
 * the sled's first instruction becomes a call into a trampoline page it
 * maps into the process ([uprobes-trampoline]).  fork(2) copies the
 * process's text with those calls, but not the trampoline's mapping, so a
 * forked child jumps into unmapped memory (SIGSEGV) at the first optimized
 * sled it reaches.  Measured on Linux 6.18: a child that calls a function
 * its parent had called dies; one whose first probe hit is a fresh sled
 * lives, because that hit maps a trampoline of its own, which may land
 * elsewhere.
 *
 * The BPF side stops such a child at its return from fork, before it runs
 * an instruction (on_syscall_exit), and the hold lands here: every sled of
 * a traced object the child maps that starts with the kernel's call is put
 * back as the unoptimized uprobe the kernel keeps for it (the bytes are
 * the architecture's: arch/arch.h, ARCH_UPROBE_*).  The child's first hit
 * takes the breakpoint path and the kernel optimizes it again, with the
 * child's own trampoline.  /proc/PID/mem writes the child's private copy
 * of the page, never the file or the parent's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "arch/arch.h"
#include "record/hold/fork_text.h"

static const uint8_t unoptimized[] = { ARCH_UPROBE_UNOPTIMIZED };

struct repair {
	struct object_set *objs;
	int mem;
	uint64_t repaired;
};

static int repair_sled(struct repair *rp, uint64_t addr)
{
	uint8_t b;

	if (pread(rp->mem, &b, 1, (off_t)addr) != 1)
		return -errno;
	if (b != ARCH_UPROBE_OPTIMIZED_BYTE)
		return 0;
	if (pwrite(rp->mem, unoptimized, sizeof(unoptimized), (off_t)addr) !=
	    (ssize_t)sizeof(unoptimized))
		return -errno;
	rp->repaired++;
	return 0;
}

static int repair_mapping(const struct proc_mapping *m, void *ctx)
{
	struct repair *rp = ctx;
	struct traced_object *o = object_set__find(rp->objs, m->dev, m->ino, NULL);
	uint64_t len = m->end - m->start;
	int err = 0;

	if (!o)
		return 0;
	for (size_t i = 0; !err && i < o->map->nsleds; i++) {
		uint64_t off = o->map->sleds[i].file_offset;

		if (off >= m->offset && off - m->offset + sizeof(unoptimized) <= len)
			err = repair_sled(rp, m->start + (off - m->offset));
	}
	return err;
}

int fork_text__repair(struct object_set *objs, pid_t pid, uint64_t *repaired)
{
	struct repair rp = { .objs = objs };
	char path[64];
	int err;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	rp.mem = open(path, O_RDWR | O_CLOEXEC);
	if (rp.mem < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	err = proc_maps__for_each_exec_mapping(pid, repair_mapping, &rp);
	close(rp.mem);
	*repaired += rp.repaired;
	return err;
}
