// SPDX-License-Identifier: MIT
/* mappings.c: see mappings.h.  The order of every step here is what the
 * coverage argument of docs/DESIGN.md ("Coverage") rests on:
 *   - a file is marked known only once its probes are live (or it has none
 *     to place), so a process that maps it and finds it known runs probed;
 *   - a held process is scanned only once every one of its threads has
 *     stopped, so no mapping of it can appear between the scan and the
 *     resume, and the hold number read then covers every hold it took;
 *   - it leaves the `held` map before it is sent SIGCONT, so a SIGCONT
 *     that finds it there is someone else's (a gap, noted in BPF). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>

#include "process/proc_maps.h"
#include "record/hold/fork_text.h"
#include "record/hold/mappings.h"

/* How long a held process may take to stop all its threads (one in an
 * uninterruptible sleep delays it) before it is resumed without that
 * proof, and any hold that overlapped is noted as a possible gap.
 * SLEDTRACE_STOP_WAIT_MS overrides it (tests). */
#define STOP_WAIT_MS 2000

static uint64_t stop_wait_ns(void)
{
	const char *v = getenv("SLEDTRACE_STOP_WAIT_MS");
	long ms = v ? strtol(v, NULL, 10) : STOP_WAIT_MS;

	return (uint64_t)(ms > 0 ? ms : STOP_WAIT_MS) * 1000000ull;
}

static uint64_t boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* /proc/PID/maps shows major:minor; the kernel's dev_t is MKDEV's
 * major << 20 | minor. */
static uint64_t kernel_dev(uint64_t dev)
{
	return ((dev >> 32) << 20) | (dev & 0xfffff);
}

static int mark_known(struct mapping_watch *w, uint64_t dev, uint64_t ino)
{
	struct sled_file_id id = { .dev = kernel_dev(dev), .ino = ino };
	uint32_t one = 1;

	return bpf_map_update_elem(w->known_fd, &id, &one, BPF_ANY) ? -errno : 0;
}

int mapping_watch__mark_objects(struct mapping_watch *w)
{
	for (size_t i = 0; i < object_set__count(w->objs); i++) {
		struct traced_object *o = object_set__get(w->objs, i);
		int err = mark_known(w, o->dev, o->ino);

		if (err)
			return err;
		o->live_ns = boot_ns();
	}
	return 0;
}

/* The files one scan found, to be marked known once attached. */
struct scan_files {
	struct mapping_watch *w;
	pid_t tgid;
	struct {
		uint64_t dev, ino;
		bool allocator; /* probed per process: stays unknown */
	} * f;
	size_t n, cap;
};

static int remember(struct scan_files *s, uint64_t dev, uint64_t ino, bool allocator)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		void *f = realloc(s->f, cap * sizeof(*s->f));

		if (!f)
			return -ENOMEM;
		s->f = f;
		s->cap = cap;
	}
	s->f[s->n].dev = dev;
	s->f[s->n].ino = ino;
	s->f[s->n].allocator = allocator;
	s->n++;
	return 0;
}

static int add_mapping(const struct proc_mapping *m, void *arg)
{
	struct scan_files *s = arg;
	char err[1024];
	int ret = object_set__add(s->w->objs, m->path, m->open_path, m->dev, m->ino, err,
				  sizeof(err));

	if (ret == -ENOMEM)
		return ret;
	ret = s->w->allocs ? alloc_probes__mapping(s->w->allocs, s->tgid, m, err, sizeof(err)) : 0;
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0) {
		/* the process runs on; its allocations are not all counted */
		s->w->alloc_failed++;
		fprintf(stderr, "sledtrace: warning: %s\n", err);
	}
	return remember(s, m->dev, m->ino, ret > 0);
}

static int mark_copy(void *ctx, uint64_t dev, uint64_t ino)
{
	return mark_known(ctx, dev, ino);
}

int mapping_watch__bind_copies(struct mapping_watch *w)
{
	return w->copies ? copies__bind(w->copies, w->objs, mark_copy, w) : 0;
}

static void fail_new(struct mapping_watch *w, size_t from)
{
	for (size_t i = from; i < object_set__count(w->objs); i++)
		object_set__get(w->objs, i)->attach_failed = true;
}

static int attach_new(struct mapping_watch *w)
{
	size_t from = w->attached;
	char err[1024];
	int ret = object_set__register(w->objs, w->col, w->fb);

	if (!ret && w->copies)
		copies__make(w->copies, w->objs);
	if (!ret)
		ret = object_set__queue(w->objs, w->att, &w->probes, w->exits);
	if (ret)
		return ret;
	w->attached = object_set__count(w->objs);
	ret = attacher__attach(w->att, err, sizeof(err));
	if (ret) {
		/* The process must run on; what could not be probed is said,
		 * and every process that maps it is a gap (never known). */
		w->failed++;
		fprintf(stderr, "sledtrace: warning: %s\n", err);
		fail_new(w, from);
		if (w->copies)
			copies__abandon(w->copies, w->objs);
		return 0;
	}
	for (size_t i = from; i < w->attached; i++)
		object_set__get(w->objs, i)->live_ns = boot_ns();
	/* Probes first, then the bind: no process maps an unprobed copy. */
	return mapping_watch__bind_copies(w);
}

/* Marks the scanned files known, now that their probes are live; a file
 * whose object could not be attached stays unknown (each process that maps
 * it is held and noted as a gap). */
static int mark_scanned(struct scan_files *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct traced_object *o = object_set__find(s->w->objs, s->f[i].dev,
								 s->f[i].ino, NULL);
		int err;

		if (s->f[i].allocator)
			continue;
		if (o && o->attach_failed) {
			err = coverage__add(s->w->gaps, (uint32_t)s->tgid, o->path, boot_ns(),
					    COVERAGE_OPEN, "its probes could not be attached");
			if (err)
				return err;
			continue;
		}
		if ((err = mark_known(s->w, s->f[i].dev, s->f[i].ino)))
			return err;
	}
	return 0;
}

int mapping_watch__scan(struct mapping_watch *w, pid_t tgid)
{
	struct scan_files s = { .w = w, .tgid = tgid };
	int ret = proc_maps__for_each_exec(tgid, add_mapping, &s);

	if (ret == -ESRCH)
		ret = 0; /* gone meanwhile: nothing to probe */
	else if (!ret && (ret = attach_new(w)) == 0)
		ret = mark_scanned(&s);
	free(s.f);
	return ret;
}

/* Waits until every thread of tgid is stopped (group stop complete): 0,
 * -ESRCH when it is gone, -ETIMEDOUT. */
static int wait_stopped(pid_t tgid)
{
	uint64_t deadline = boot_ns() + stop_wait_ns();
	struct timespec nap = { 0, 20000 };

	for (;;) {
		int ret = proc_maps__all_stopped(tgid);

		if (ret != 0)
			return ret > 0 ? 0 : ret;
		if (boot_ns() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 1000000)
			nap.tv_nsec *= 2;
	}
}

static uint64_t hold_number(const struct mapping_watch *w)
{
	return __atomic_load_n(w->hold_seq, __ATOMIC_SEQ_CST);
}

static void note_time(struct mapping_watch *w, uint64_t since)
{
	uint64_t held = boot_ns() - since;

	w->holds++;
	w->hold_ns_sum += held;
	if (held > w->hold_ns_max)
		w->hold_ns_max = held;
}

/* A hold of tgid taken before a resume that could not wait for all its
 * threads to stop may have had its stop flushed by that SIGCONT. */
static int check_unconfirmed(struct mapping_watch *w, const struct sled_mapped *e)
{
	uint64_t until;

	if (!u64map__get(&w->unconfirmed, e->h.tgid + 1ull, &until) || e->h.ts > until)
		return 0;
	return coverage__add(w->gaps, e->h.tgid, NULL, e->h.ts, boot_ns(),
			     "held while a resume could not wait for all its threads to stop");
}

/* A forked child stopped before its first instruction: what a repair
 * cannot do is said, and the recording goes on. */
static void repair_child(struct mapping_watch *w, pid_t pid)
{
	int err = fork_text__repair(w->objs, pid, &w->repaired);

	w->fork_holds++;
	if (err && err != -ESRCH)
		fprintf(stderr,
			"sledtrace: warning: cannot repair the text of forked child %d (%s): it may "
			"crash at a probed function its parent had called\n",
			(int)pid, strerror(-err));
}

int mapping_watch__on_mapped(struct mapping_watch *w, const struct sled_mapped *e)
{
	bool forked = SLED_TAG_KIND(e->h.tag) == SLED_KIND_FORK_HOLD;
	uint32_t tgid = e->h.tgid;
	uint64_t resolved, seq;
	int stop, ret;

	/* A resume made after this hold was taken covered it (its stop was
	 * flushed by that SIGCONT): nothing to do, nobody to resume.  Not a
	 * forked child's: its first stop is its only chance of repair. */
	if (!forked && u64map__get(&w->resolved, tgid + 1ull, &resolved) && e->hold <= resolved) {
		w->covered++;
		return 0;
	}
	ret = check_unconfirmed(w, e);
	stop = wait_stopped((pid_t)tgid);
	seq = hold_number(w);
	if (!ret && stop != -ESRCH && w->att)
		ret = mapping_watch__scan(w, (pid_t)tgid);
	if (forked && stop == 0 && w->repair_forks)
		repair_child(w, (pid_t)tgid);
	/* Resume whatever happened: a held process must never stay stopped. */
	bpf_map_delete_elem(w->held_fd, &tgid);
	kill((pid_t)tgid, SIGCONT);
	note_time(w, e->h.ts);
	/* Only a complete stop proves that no hold of the process was in
	 * flight: without one, a hold numbered below seq may have stopped it
	 * after this SIGCONT, and its event must resume it again. */
	if (stop == -ETIMEDOUT) {
		w->unconfirmed_resumes++;
		if (!ret)
			ret = u64map__put(&w->unconfirmed, tgid + 1ull, boot_ns());
	} else if (!ret) {
		ret = u64map__put(&w->resolved, tgid + 1ull, seq);
	}
	return ret;
}

void mapping_watch__free(struct mapping_watch *w)
{
	u64map__clear(&w->resolved);
	u64map__clear(&w->unconfirmed);
}
