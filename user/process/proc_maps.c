// SPDX-License-Identifier: MIT
/* proc_maps.c: see proc_maps.h. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/sysmacros.h>

#include "process/proc_maps.h"

#define PF_KTHREAD 0x00200000u /* include/linux/sched.h */

/* The state letter and flags of a /proc .../stat file. */
static int read_stat(const char *path, char *st, unsigned long *flags)
{
	char buf[1024], *p;
	size_t n;
	FILE *f = fopen(path, "re");

	if (!f)
		return -ESRCH;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	/* comm may hold blanks and parentheses: fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", st, flags) != 2)
		return -ESRCH;
	return 0;
}

int proc_state(pid_t pid, enum proc_state *state)
{
	char path[64], st = 0;
	unsigned long flags = 0;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((err = read_stat(path, &st, &flags)))
		return err;
	if (flags & PF_KTHREAD)
		*state = PROC_KTHREAD;
	else if (st == 'Z' || st == 'X')
		*state = PROC_EXITED;
	else
		*state = PROC_ALIVE;
	return 0;
}

int proc_maps__all_stopped(pid_t pid)
{
	char path[320];
	struct dirent *d;
	int ret = 1;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return -ESRCH;
	while (ret == 1 && (d = readdir(dir))) {
		unsigned long flags;
		char st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.32s/stat", (int)pid, d->d_name);
		/* A thread gone meanwhile runs nothing. */
		if (!read_stat(path, &st, &flags) && !strchr("TtZX", st))
			ret = 0;
	}
	closedir(dir);
	return ret;
}

uint64_t proc_maps__dev(dev_t dev)
{
	return ((uint64_t)major(dev) << 32) | minor(dev);
}

struct seen {
	uint64_t (*ids)[2];
	size_t n;
};

static int seen_add(struct seen *s, uint64_t dev, uint64_t ino)
{
	uint64_t(*ids)[2];

	for (size_t i = 0; i < s->n; i++)
		if (s->ids[i][0] == dev && s->ids[i][1] == ino)
			return 1;
	ids = realloc(s->ids, (s->n + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	s->ids = ids;
	s->ids[s->n][0] = dev;
	s->ids[s->n][1] = ino;
	s->n++;
	return 0;
}

/* "START-END PERMS OFFSET MAJ:MIN INODE PATH": only executable file
 * mappings count (inode 0 is anonymous memory, [vdso] and the like). */
static int parse_line(pid_t pid, char *line, struct proc_mapping *m)
{
	uint64_t start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pathpos = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n", &start,
		   &end, perms, &off, &maj, &min, &ino, &pathpos) < 7)
		return 0;
	if (perms[2] != 'x' || !ino || !pathpos || line[pathpos] != '/')
		return 0;
	line[strcspn(line, "\n")] = 0;
	snprintf(m->path, sizeof(m->path), "%s", line + pathpos);
	snprintf(m->open_path, sizeof(m->open_path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
		 (int)pid, start, end);
	m->dev = ((uint64_t)maj << 32) | min;
	m->ino = ino;
	m->start = start;
	m->end = end;
	m->offset = off;
	return 1;
}

/* Every executable file mapping, or (once) the first of each file. */
static int walk_exec(pid_t pid, bool once, int (*fn)(const struct proc_mapping *m, void *ctx),
		     void *ctx)
{
	struct proc_mapping *m = malloc(sizeof(*m));
	struct seen seen = { 0 };
	char path[64], *line = NULL;
	size_t cap = 0;
	int ret = 0, nlines = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f || !m) {
		ret = !m ? -ENOMEM : -ESRCH;
		goto out;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		nlines++;
		if (!parse_line(pid, line, m))
			continue;
		ret = once ? seen_add(&seen, m->dev, m->ino) : 0;
		if (ret == 1) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = fn(m, ctx);
	}
	if (!ret && !nlines)
		ret = -ESRCH; /* exited: its memory is gone */
out:
	if (f)
		fclose(f);
	free(line);
	free(seen.ids);
	free(m);
	return ret;
}

int proc_maps__for_each_exec(pid_t pid, int (*fn)(const struct proc_mapping *m, void *ctx),
			     void *ctx)
{
	return walk_exec(pid, true, fn, ctx);
}

int proc_maps__for_each_exec_mapping(pid_t pid, int (*fn)(const struct proc_mapping *m, void *ctx),
				     void *ctx)
{
	return walk_exec(pid, false, fn, ctx);
}
