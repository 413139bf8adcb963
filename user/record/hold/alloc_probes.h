/* SPDX-License-Identifier: MIT */
/* alloc_probes.h: record --costs's allocator probes (bpf/costs.h), placed
 * per traced process.  A uprobe on libc's malloc for every process would
 * trap every program on the machine; a link that names one process puts
 * its breakpoints into that process's memory only.  So each traced
 * process gets its own links, made while it is held at the mapping of an
 * object that has allocators (the object stays unknown for that reason:
 * every process that maps it is held once), or at its first stop after a
 * fork (a child's inherited breakpoints are not its own), and closed when
 * it ends (docs/DESIGN.md, "Costs"). */
#ifndef SLEDTRACE_ALLOC_PROBES_H
#define SLEDTRACE_ALLOC_PROBES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "process/proc_maps.h"
#include "process/run_as.h"

struct bpf_program;
struct alloc_probes;

/* entry runs at every allocator's entry, ret at the return of those that
 * may call another (bpf/costs.h); user: --alloc-fn symbols. */
int alloc_probes__new(struct bpf_program *entry, struct bpf_program *ret, const char *const *user,
		      size_t nuser, struct alloc_probes **out);
void alloc_probes__free(struct alloc_probes *a);
/* Process tgid maps m: when m's file has allocators, they are probed for
 * tgid (once per process and file).  1: it has (the file must stay
 * unknown), 0: none, < 0: an error (-errno), said in err. */
int alloc_probes__mapping(struct alloc_probes *a, pid_t tgid, const struct proc_mapping *m,
			  char *err, size_t errlen);
/* tgid ended (or exec'd into a new image): its links go. */
void alloc_probes__gone(struct alloc_probes *a, pid_t tgid);
/* --alloc-fn's check, before anything runs: every symbol is defined by
 * exe or a library it needs (ra: as whom the loader would search), or by
 * an object mapped by one of pids.  -EINVAL and one line in err if not. */
int alloc_probes__check(const char *const *syms, size_t n, const char *exe, const struct run_as *ra,
			const pid_t *pids, size_t npids, char *err, size_t errlen);
/* How many processes have allocator probes now. */
size_t alloc_probes__processes(const struct alloc_probes *a);

#endif
