/* SPDX-License-Identifier: MIT */
/* folded.h: folded stacks ("root;...;leaf COUNT", one line per distinct
 * call path), the input of flamegraph.pl, speedscope and inferno. */
#ifndef SLEDTRACE_FOLDED_H
#define SLEDTRACE_FOLDED_H

#include <stdio.h>

#include "model/calltree.h"

enum folded_weight {
	FOLDED_SELF_NS, /* self time in ns: a flame graph of where time went */
	FOLDED_CALLS,	/* calls of the path's last function */
};

/* Returns 0 or -EIO when writing failed. */
int folded__write(const struct calltree *ct, enum folded_weight w, FILE *f);

#endif
