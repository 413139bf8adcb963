/* SPDX-License-Identifier: MIT */
/* record.h: one recording session, from the target's ELF to a committed
 * trace.  Phases, in order: record__open (target, sleds, names),
 * record__load (BPF), record__start (output, child, probes, release),
 * record__run (drain until the child exits), record__finish (trace and
 * summary), record__free (detach; safe after any phase). */
#ifndef SLEDTRACE_RECORD_H
#define SLEDTRACE_RECORD_H

#include "record/record_opts.h"

struct record;

int record__open(const struct record_opts *opts, struct record **out);
int record__load(struct record *r);
int record__start(struct record *r);
int record__run(struct record *r);
/* Returns the command's exit status, or a negative errno. */
int record__finish(struct record *r);
void record__free(struct record *r);
/* The phases in order, then free: the command's exit status, or a
 * negative errno (its one line printed).  ms[5], when not NULL, gets the
 * milliseconds of open, load, start, run and finish; ms[5] of the detach. */
int record__session(const struct record_opts *opts, double ms[6]);
/* What record__session returns when the command line asked for what the
 * traced objects do not have (a --flow naming no function): its line is
 * out, and record exits 2. */
#define RECORD_EUSAGE (-EDOM)

#endif
