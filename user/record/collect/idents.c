// SPDX-License-Identifier: MIT
/* idents.c: see idents.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/collect/idents.h"
#include "util/u64map.h"

struct proc_ident {
	char name[SLED_COMM_LEN + 1]; /* "" until the main thread is named */
	char *cmdline;		      /* NULL until exec or fork says */
};

struct idents {
	struct u64map threads; /* tgid << 32 | tid -> char[SLED_COMM_LEN + 1] */
	struct u64map procs;   /* tgid + 1 -> struct proc_ident */
};

int idents__new(struct idents **out)
{
	return (*out = calloc(1, sizeof(**out))) ? 0 : -ENOMEM;
}

static void free_vals(struct u64map *m, bool procs)
{
	for (size_t i = 0; i < m->cap; i++) {
		struct proc_ident *p = (struct proc_ident *)(uintptr_t)m->vals[i];

		if (m->keys[i] && p && procs)
			free(p->cmdline);
		if (m->keys[i])
			free(p);
	}
	u64map__clear(m);
}

void idents__free(struct idents *ids)
{
	if (!ids)
		return;
	free_vals(&ids->threads, false);
	free_vals(&ids->procs, true);
	free(ids);
}

static uint64_t thread_key(uint32_t tgid, uint32_t tid)
{
	return (uint64_t)tgid << 32 | tid;
}

static struct proc_ident *proc_of(const struct idents *ids, uint32_t tgid)
{
	uint64_t v = 0;

	u64map__get(&ids->procs, (uint64_t)tgid + 1, &v);
	return (struct proc_ident *)(uintptr_t)v;
}

static int proc_get(struct idents *ids, uint32_t tgid, struct proc_ident **out)
{
	if ((*out = proc_of(ids, tgid)))
		return 0;
	if (!(*out = calloc(1, sizeof(**out))))
		return -ENOMEM;
	if (u64map__put(&ids->procs, (uint64_t)tgid + 1, (uintptr_t)*out)) {
		free(*out);
		return -ENOMEM;
	}
	return 0;
}

/* argv is NUL-separated: shown as one line, blanks between. */
static char *join_args(const struct sled_ident *id)
{
	uint32_t n = id->args_len < SLED_ARGS_MAX ? id->args_len : SLED_ARGS_MAX;
	bool cut = id->flags & SLED_IDENT_TRUNCATED;
	char *s = malloc(n + 4);

	if (!s)
		return NULL;
	memcpy(s, id->args, n);
	while (n && !s[n - 1])
		n--;
	for (uint32_t i = 0; i < n; i++)
		if (!s[i])
			s[i] = ' ';
	strcpy(s + n, cut ? "..." : "");
	return s;
}

static int set_thread(struct idents *ids, uint32_t tgid, uint32_t tid, const char *comm)
{
	uint64_t *v = u64map__find(&ids->threads, thread_key(tgid, tid));
	char *name = v ? (char *)(uintptr_t)*v : NULL;

	if (!name) {
		if (!(name = calloc(1, SLED_COMM_LEN + 1)))
			return -ENOMEM;
		if (u64map__put(&ids->threads, thread_key(tgid, tid), (uintptr_t)name)) {
			free(name);
			return -ENOMEM;
		}
	}
	memcpy(name, comm, SLED_COMM_LEN);
	return 0;
}

int idents__update(struct idents *ids, const struct sled_ident *id)
{
	char comm[SLED_COMM_LEN + 1] = { 0 };
	struct proc_ident *p;
	char *cmdline;
	int err;

	memcpy(comm, id->comm, SLED_COMM_LEN);
	if ((err = set_thread(ids, id->h.tgid, id->h.tid, comm)))
		return err;
	if (id->h.tid != id->h.tgid && !(id->flags & SLED_IDENT_ARGS))
		return 0;
	if ((err = proc_get(ids, id->h.tgid, &p)))
		return err;
	memcpy(p->name, comm, sizeof(p->name));
	if (!(id->flags & SLED_IDENT_ARGS))
		return 0;
	if (!(cmdline = join_args(id)))
		return -ENOMEM;
	free(p->cmdline);
	p->cmdline = cmdline;
	return 0;
}

int idents__seed(struct idents *ids, uint32_t tgid, uint32_t tid, const char *comm,
		 const char *cmdline)
{
	char name[SLED_COMM_LEN + 1] = { 0 };
	struct proc_ident *p;
	int err;

	strncpy(name, comm, SLED_COMM_LEN);
	if ((err = set_thread(ids, tgid, tid, name)) || tid != tgid)
		return err;
	if ((err = proc_get(ids, tgid, &p)))
		return err;
	memcpy(p->name, name, sizeof(p->name));
	if (!cmdline || p->cmdline)
		return 0;
	return (p->cmdline = strdup(cmdline)) ? 0 : -ENOMEM;
}

int idents__inherit(struct idents *ids, uint32_t child, uint32_t parent)
{
	struct proc_ident *pp = proc_of(ids, parent), *cp;
	int err;

	if (!pp || !pp->cmdline)
		return 0;
	if ((err = proc_get(ids, child, &cp)))
		return err;
	if (cp->cmdline)
		return 0;
	return (cp->cmdline = strdup(pp->cmdline)) ? 0 : -ENOMEM;
}

void idents__gone(struct idents *ids, uint32_t tgid, uint32_t tid, bool last)
{
	uint64_t *v = u64map__find(&ids->threads, thread_key(tgid, tid));
	struct proc_ident *p;

	if (v) {
		free((char *)(uintptr_t)*v);
		*v = 0;
	}
	if (!last || !(v = u64map__find(&ids->procs, (uint64_t)tgid + 1)))
		return;
	p = (struct proc_ident *)(uintptr_t)*v;
	if (p)
		free(p->cmdline);
	free(p);
	*v = 0;
}

const char *idents__thread_name(const struct idents *ids, uint32_t tgid, uint32_t tid)
{
	uint64_t v = 0;

	u64map__get(&ids->threads, thread_key(tgid, tid), &v);
	return (const char *)(uintptr_t)v;
}

const char *idents__process_name(const struct idents *ids, uint32_t tgid)
{
	struct proc_ident *p = proc_of(ids, tgid);

	return p && p->name[0] ? p->name : NULL;
}

const char *idents__cmdline(const struct idents *ids, uint32_t tgid)
{
	struct proc_ident *p = proc_of(ids, tgid);

	return p ? p->cmdline : NULL;
}
