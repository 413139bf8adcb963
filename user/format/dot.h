/* SPDX-License-Identifier: MIT */
/* dot.h: the call graph of a trace in Graphviz DOT: one node per function
 * (calls, self time), one edge per caller -> callee pair with its exact
 * call count.  Reads a merged calltree (calltree__new). */
#ifndef SLEDTRACE_DOT_H
#define SLEDTRACE_DOT_H

#include <stdio.h>

#include "model/calltree.h"

int dot__write(const struct calltree *ct, FILE *f);

#endif
