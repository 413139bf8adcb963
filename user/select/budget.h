/* SPDX-License-Identifier: MIT */
/* budget.h: the functions `record --budget` leaves unprobed, as a set of
 * (object file name, function name) pairs.  The set is decided before the
 * recording from measured call counts (analysis/budget_plan.h); here it is
 * only kept and asked, when each object's functions are selected.  Names,
 * not addresses: a plan made from an earlier trace applies to any build
 * whose functions keep their names, and the object's file name (not its
 * path) because a rewritten copy or another checkout maps the same file
 * under another directory. */
#ifndef SLEDTRACE_BUDGET_H
#define SLEDTRACE_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct budget;

int budget__new(struct budget **out);
void budget__free(struct budget *b);
/* object: a path or a file name ("" when unknown: then any object's
 * function of that name).  Adding a pair twice keeps one.  -ENOMEM. */
int budget__leave_out(struct budget *b, const char *object, const char *name);
/* Makes the set ready to be asked; call once, after the last leave_out. */
void budget__seal(struct budget *b);
bool budget__leaves_out(const struct budget *b, const char *object, const char *name);
size_t budget__count(const struct budget *b);

#endif
