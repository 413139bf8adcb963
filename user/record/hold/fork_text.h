/* SPDX-License-Identifier: MIT */
/* fork_text.h: a forked child's text made runnable before it runs: the
 * calls into a uprobe trampoline its parent had and it does not are put
 * back as breakpoints (fork_text.c says why). */
#ifndef SLEDTRACE_FORK_TEXT_H
#define SLEDTRACE_FORK_TEXT_H

#include <stdint.h>
#include <sys/types.h>

#include "record/hold/objects.h"
#include "process/proc_maps.h"

/* Repairs every optimized sled of objs' objects that stopped process pid
 * maps; adds how many to *repaired.  Returns 0, -ESRCH when pid is gone,
 * or another negative errno. */
int fork_text__repair(struct object_set *objs, pid_t pid, uint64_t *repaired);

#endif
