/* SPDX-License-Identifier: MIT */
/* frame_costs.h: what a call spent besides time, counted exactly (record
 * --costs; docs/DESIGN.md, "Costs"): allocations and their bytes, frees,
 * system calls, page faults and voluntary switches.  A thread keeps
 * running totals; a frame's inclusive counts are the totals' growth
 * between its entry and its end, its self counts what is left after its
 * children's, as with time.  The builder keeps them beside the shadow
 * stack (frame_builder__cost), only for threads that spent something, and
 * hands a frame's counts to sinks at its leave (struct frame.costs). */
#ifndef SLEDTRACE_FRAME_COSTS_H
#define SLEDTRACE_FRAME_COSTS_H

#include <stdbool.h>
#include <stdint.h>

enum cost_kind {
	COST_ALLOCS = 0,
	COST_ALLOC_BYTES = 1, /* bytes the allocations asked for */
	COST_FREES = 2,
	COST_SYSCALLS = 3,
	COST_PAGE_FAULTS = 4,	     /* of data accesses, taken in user mode */
	COST_VOLUNTARY_SWITCHES = 5, /* the thread left its CPU to wait */
	COST_NKINDS = 6,
};

/* Their names in every output: "allocs", "alloc_bytes", "frees",
 * "syscalls", "page_faults", "voluntary_switches". */
extern const char *const cost_names[COST_NKINDS];
/* The kind named name, or -1. */
int cost_kind__parse(const char *name);

/* A frame's own system calls of one number. */
struct cost_syscall {
	uint32_t nr;
	uint64_t count;
};

/* A frame's counts as it ends (struct frame.costs): valid during leave(). */
struct frame_costs {
	uint64_t self[COST_NKINDS];
	uint64_t total[COST_NKINDS];	     /* children included */
	const struct cost_syscall *syscalls; /* self, by number, in no order */
	uint32_t nsyscalls;
};

/* Adds count system calls of nr to the list (*v, *n, room for *cap). */
int cost_syscalls__add(struct cost_syscall **v, uint32_t *n, uint32_t *cap, uint32_t nr,
		       uint64_t count);

/* Whether any count of c is not 0. */
bool frame_costs__any(const struct frame_costs *c);

/* The builder's side: one per thread that spent something. */
struct cost_stack;

void cost_stack__free(struct cost_stack *s);
/* n of kind spent at depth (0: outside every frame); nr is the system
 * call's number for COST_SYSCALLS.  Creates *s on first use. */
int cost_stack__add(struct cost_stack **s, uint32_t depth, enum cost_kind kind, uint64_t n,
		    uint32_t nr);
/* The frame at depth begins (its counts start from the totals now). */
int cost_stack__enter(struct cost_stack *s, uint32_t depth);
/* The frame at depth ends: its counts, valid until the next call. */
const struct frame_costs *cost_stack__leave(struct cost_stack *s, uint32_t depth);

#endif
