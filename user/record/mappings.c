// SPDX-License-Identifier: MIT
/* mappings.c: see mappings.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "probe/proc_maps.h"
#include "record/mappings.h"

/* /proc/PID/maps shows major:minor; the kernel's dev_t is MKDEV's
 * major << 20 | minor. */
static int mark_known(struct mapping_watch *w, uint64_t dev, uint64_t ino)
{
	struct sled_file_id id = { .dev = ((dev >> 32) << 20) | (dev & 0xfffff), .ino = ino };
	uint32_t one = 1;

	return bpf_map_update_elem(w->known_fd, &id, &one, BPF_ANY) ? -errno : 0;
}

int mapping_watch__mark_objects(struct mapping_watch *w)
{
	for (size_t i = 0; i < object_set__count(w->objs); i++) {
		const struct traced_object *o = object_set__get(w->objs, i);
		int err = mark_known(w, o->dev, o->ino);

		if (err)
			return err;
	}
	return 0;
}

static int add_mapping(const struct proc_mapping *m, void *arg)
{
	struct mapping_watch *w = arg;
	char err[1024];
	int ret = object_set__add(w->objs, m->path, m->open_path, m->dev, m->ino, err, sizeof(err));

	/* Files without sleds (libc, the loader) are known too: no more stops. */
	if (ret == -ENOMEM)
		return ret;
	return mark_known(w, m->dev, m->ino);
}

static int mark_copy(void *ctx, uint64_t dev, uint64_t ino)
{
	return mark_known(ctx, dev, ino);
}

int mapping_watch__bind_copies(struct mapping_watch *w)
{
	return w->copies ? copies__bind(w->copies, w->objs, mark_copy, w) : 0;
}

static int attach_new(struct mapping_watch *w)
{
	char err[1024];
	int ret = object_set__register(w->objs, w->col, w->fb);

	if (!ret && w->copies)
		copies__make(w->copies, w->objs);
	if (!ret)
		ret = object_set__queue(w->objs, w->att, &w->progs, w->exits);
	if (ret)
		return ret;
	ret = attacher__attach(w->att, err, sizeof(err));
	if (ret) {
		/* The process must run on; what could not be probed is said. */
		w->failed++;
		fprintf(stderr, "sledtrace: warning: %s\n", err);
		if (w->copies)
			copies__abandon(w->copies, w->objs);
		return 0;
	}
	/* Probes first, then the bind: no process maps an unprobed copy. */
	return mapping_watch__bind_copies(w);
}

int mapping_watch__scan(struct mapping_watch *w, pid_t tgid)
{
	int ret = proc_maps__for_each_exec(tgid, add_mapping, w);

	if (ret == -ESRCH)
		return 0; /* gone meanwhile: nothing to probe */
	if (ret)
		return ret;
	return attach_new(w);
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int mapping_watch__on_mapped(struct mapping_watch *w, const struct sled_event *e)
{
	uint32_t tgid = e->tgid;
	int ret = w->att ? mapping_watch__scan(w, (pid_t)tgid) : 0;
	uint64_t held;

	/* Resume whatever happened: a held process must never stay stopped. */
	bpf_map_delete_elem(w->held_fd, &tgid);
	kill((pid_t)tgid, SIGCONT);
	held = boot_ns() - e->ts;
	w->holds++;
	w->hold_ns_sum += held;
	if (held > w->hold_ns_max)
		w->hold_ns_max = held;
	return ret;
}
