/* SPDX-License-Identifier: MIT */
/* cgr.h: exact dynamic call edges for code-graph-rag, as JSON lines: a
 * header ("sampled": false) then one line per (caller, callee) pair of
 * in-repo functions with its exact count.  Frames outside repo_root (the
 * standard library, dependencies, build directories) and anonymous
 * frames are seen through to the nearest in-repo named ancestor.  Reads a
 * merged calltree. */
#ifndef SLEDTRACE_CGR_H
#define SLEDTRACE_CGR_H

#include <stdio.h>

#include "model/calltree.h"

/* repo_root: an absolute directory. */
int cgr__write(const struct calltree *ct, const char *repo_root, FILE *f);

#endif
