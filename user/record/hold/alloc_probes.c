// SPDX-License-Identifier: MIT
/* alloc_probes.c: see alloc_probes.h.  What an object's allocators are is
 * read once per file (its symbols by name, aliases at one address probed
 * once: glibc's aligned_alloc is memalign); a process's links are two
 * uprobe_multi links per such file, entries and returns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "arch/arch.h"
#include "object/elf_object.h"
#include "process/needed.h"
#include "record/hold/alloc_probes.h"
#include "sledtrace.h"

#define MAX_ALLOC_SYMS 32

/* The allocators a C library exports, and what their size is made of. */
static const struct {
	const char *name;
	unsigned how;
} known_syms[] = {
	{ "malloc", SLED_ALLOC_MALLOC },    { "calloc", SLED_ALLOC_CALLOC },
	{ "realloc", SLED_ALLOC_REALLOC },  { "aligned_alloc", SLED_ALLOC_ALIGNED },
	{ "memalign", SLED_ALLOC_ALIGNED }, { "posix_memalign", SLED_ALLOC_POSIX_MEMALIGN },
	{ "valloc", SLED_ALLOC_VALLOC },    { "pvalloc", SLED_ALLOC_VALLOC },
	{ "free", SLED_ALLOC_FREE },	    { "cfree", SLED_ALLOC_FREE },
};

/* One file's allocators: entry offsets and cookies, and the offsets of
 * those that may nest (their returns are probed too). */
struct alloc_file {
	uint64_t dev, ino;
	size_t n, nret;
	unsigned long off[MAX_ALLOC_SYMS], ret_off[MAX_ALLOC_SYMS];
	__u64 cookie[MAX_ALLOC_SYMS];
};

struct alloc_link {
	pid_t tgid;
	uint64_t dev, ino;
	struct bpf_link *entry, *ret;
};

struct alloc_probes {
	struct bpf_program *entry, *ret;
	const char *const *user;
	size_t nuser;
	struct alloc_file *files;
	size_t nfiles;
	struct alloc_link *links;
	size_t nlinks;
};

int alloc_probes__new(struct bpf_program *entry, struct bpf_program *ret, const char *const *user,
		      size_t nuser, struct alloc_probes **out)
{
	struct alloc_probes *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->entry = entry;
	a->ret = ret;
	a->user = user;
	a->nuser = nuser;
	*out = a;
	return 0;
}

static void link_close(struct alloc_link *l)
{
	bpf_link__destroy(l->entry);
	bpf_link__destroy(l->ret);
}

void alloc_probes__free(struct alloc_probes *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nlinks; i++)
		link_close(&a->links[i]);
	free(a->links);
	free(a->files);
	free(a);
}

/* sym at its file offset, once per address, past what the kernel would
 * single-step at its entry (arch_entry_skip). */
static void add_sym(struct alloc_file *f, const struct elf_object *o, const char *name,
		    unsigned how)
{
	const struct elf_symbol *s = elf_object__find_symbol(o, name);
	uint8_t code[16];
	uint64_t off, addr;

	if (!s || !s->defined_func || f->n == MAX_ALLOC_SYMS)
		return;
	addr = s->addr;
	if (!elf_object__read_vaddr(o, addr, code, sizeof(code)))
		addr += arch_entry_skip(code, sizeof(code));
	if (elf_object__vaddr_to_offset(o, addr, &off))
		return;
	for (size_t i = 0; i < f->n; i++)
		if (f->off[i] == off)
			return;
	f->off[f->n] = off;
	f->cookie[f->n++] = how;
	if (SLED_ALLOC_NESTS(how))
		f->ret_off[f->nret++] = off;
}

/* The allocators of the file behind m, read once. */
static int file_of(struct alloc_probes *a, const struct proc_mapping *m, struct alloc_file **out,
		   char *err, size_t errlen)
{
	struct elf_object *o;
	struct alloc_file *f;
	int ret;

	for (size_t i = 0; i < a->nfiles; i++)
		if (a->files[i].dev == m->dev && a->files[i].ino == m->ino) {
			*out = &a->files[i];
			return 0;
		}
	f = realloc(a->files, (a->nfiles + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	a->files = f;
	f = &a->files[a->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = m->dev;
	f->ino = m->ino;
	*out = f;
	if ((ret = elf_object__open(m->open_path, &o, err, errlen)))
		return ret == -ENOMEM ? ret : 0; /* not ELF, or gone: no allocators */
	for (size_t i = 0; i < sizeof(known_syms) / sizeof(known_syms[0]); i++)
		add_sym(f, o, known_syms[i].name, known_syms[i].how);
	for (size_t i = 0; i < a->nuser; i++)
		add_sym(f, o, a->user[i], SLED_ALLOC_USER);
	elf_object__free(o);
	return 0;
}

static struct bpf_link *attach(struct bpf_program *prog, pid_t tgid, const char *path,
			       const unsigned long *off, const __u64 *cookies, size_t n,
			       bool retprobe)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, uo, .offsets = off, .cookies = cookies, .cnt = n,
		    .retprobe = retprobe);

	return bpf_program__attach_uprobe_multi(prog, tgid, path, NULL, &uo);
}

int alloc_probes__mapping(struct alloc_probes *a, pid_t tgid, const struct proc_mapping *m,
			  char *err, size_t errlen)
{
	struct alloc_file *f;
	struct alloc_link *l;
	int ret = file_of(a, m, &f, err, errlen);

	if (ret || !f->n)
		return ret;
	for (size_t i = 0; i < a->nlinks; i++)
		if (a->links[i].tgid == tgid && a->links[i].dev == f->dev &&
		    a->links[i].ino == f->ino)
			return 1;
	l = realloc(a->links, (a->nlinks + 1) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	a->links = l;
	l = &a->links[a->nlinks];
	*l = (struct alloc_link){ .tgid = tgid, .dev = f->dev, .ino = f->ino };
	l->entry = attach(a->entry, tgid, m->open_path, f->off, f->cookie, f->n, false);
	if (l->entry && f->nret)
		l->ret = attach(a->ret, tgid, m->open_path, f->ret_off, NULL, f->nret, true);
	if (!l->entry || (f->nret && !l->ret)) {
		ret = -errno;
		snprintf(err, errlen, "cannot probe the allocators of %s in process %d: %s",
			 m->path, (int)tgid, strerror(errno));
		link_close(l);
		return ret ? ret : -EINVAL;
	}
	a->nlinks++;
	return 1;
}

void alloc_probes__gone(struct alloc_probes *a, pid_t tgid)
{
	size_t kept = 0;

	if (!a)
		return;
	for (size_t i = 0; i < a->nlinks; i++) {
		if (a->links[i].tgid == tgid)
			link_close(&a->links[i]);
		else
			a->links[kept++] = a->links[i];
	}
	a->nlinks = kept;
}

static bool defines(const char *path, const char *name)
{
	struct elf_object *o;
	const struct elf_symbol *s;
	char err[256];
	bool found;

	if (elf_object__open(path, &o, err, sizeof(err)))
		return false;
	s = elf_object__find_symbol(o, name);
	found = s && s->defined_func;
	elf_object__free(o);
	return found;
}

/* One symbol looked for in each object a search visits. */
struct sym_search {
	const char *name;
	bool found;
};

static int search_path(const char *path, void *ctx)
{
	struct sym_search *s = ctx;

	s->found = s->found || defines(path, s->name);
	return 0;
}

static int search_mapping(const struct proc_mapping *m, void *ctx)
{
	return search_path(m->open_path, ctx);
}

int alloc_probes__check(const char *const *syms, size_t n, const char *exe, const struct run_as *ra,
			const pid_t *pids, size_t npids, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		struct sym_search s = { .name = syms[i] };

		if (exe) {
			search_path(exe, &s);
			if (!s.found)
				needed__each(exe, ra, search_path, &s);
		}
		for (size_t p = 0; p < npids && !s.found; p++)
			proc_maps__for_each_exec(pids[p], search_mapping, &s);
		if (!s.found) {
			snprintf(err, errlen,
				 "--alloc-fn: no function '%s' in %s or the libraries it %s",
				 syms[i], exe ? exe : "the processes of -p",
				 exe ? "needs" : "maps");
			return -EINVAL;
		}
	}
	return 0;
}

size_t alloc_probes__processes(const struct alloc_probes *a)
{
	size_t n = 0;

	for (size_t i = 0; a && i < a->nlinks; i++)
		n += i == 0 || a->links[i - 1].tgid != a->links[i].tgid;
	return n;
}
