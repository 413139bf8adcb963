/* SPDX-License-Identifier: MIT */
/* mappings.h: objects that appear while recording.  The BPF side stops a
 * traced process when it maps a file executable that is not known (exec,
 * the dynamic loader, dlopen, a fork carrying such a mapping) and reports
 * it (SLED_KIND_MAPPED); here, once all its threads have stopped, the
 * process's mappings are read again, every new object with sleds is
 * opened, registered and probed, every file looked at is marked known once
 * its probes are live (so mapping it again costs no stop), and the process
 * is resumed.  docs/DESIGN.md ("Coverage") argues why no process runs an
 * unprobed object this way, and coverage.h lists where it cannot. */
#ifndef SLEDTRACE_MAPPINGS_H
#define SLEDTRACE_MAPPINGS_H

#include <stdint.h>
#include <sys/types.h>

#include "model/frames.h"
#include "probes/attach.h"
#include "probes/exit_policy.h"
#include "probes/probe_plan.h"
#include "record/collect/collector.h"
#include "record/hold/alloc_probes.h"
#include "record/hold/copies.h"
#include "record/hold/coverage.h"
#include "record/hold/objects.h"
#include "sledtrace.h"
#include "util/u64map.h"

struct mapping_watch {
	struct object_set *objs;
	struct attacher *att;
	struct object_probes probes;
	const struct exit_policy *exits;
	struct collector *col;
	struct frame_builder *fb;
	int known_fd, held_fd;		   /* the BPF maps known_files and held */
	const volatile uint64_t *hold_seq; /* the BPF side's hold counter */
	struct copies *copies;		   /* rewritten copies for later processes; NULL: none */
	struct trace_gaps *gaps;	   /* coverage gaps found here */
	struct alloc_probes *allocs;	   /* record --costs: per-process allocator probes */
	bool repair_forks;		   /* forked children's text may need repair */
	size_t attached;		   /* objects [0, attached) were offered to the attacher */
	struct u64map resolved;		   /* tgid + 1 -> hold number its last resume covered */
	struct u64map unconfirmed;	   /* tgid + 1 -> time of a resume without a full stop */
	bool quiet;
	/* What holding cost: from the mapping to the resume, boot-time ns. */
	uint64_t holds, hold_ns_sum, hold_ns_max;
	uint64_t failed;	       /* objects that could not be attached (warned) */
	uint64_t covered;	       /* holds an earlier resume had covered */
	uint64_t unconfirmed_resumes;  /* resumes without every thread stopped */
	uint64_t fork_holds, repaired; /* forked children held, sleds repaired (fork_text.h) */
	uint64_t alloc_failed;	       /* processes whose allocators could not be probed (warned) */
};

/* Marks every object already in the set known. */
int mapping_watch__mark_objects(struct mapping_watch *w);
/* Reads tgid's executable mappings: new objects with sleds are added and
 * probed, every file is marked known.  No resume. */
int mapping_watch__scan(struct mapping_watch *w, pid_t tgid);
/* Binds the copies queued and attached so far (copies.h). */
int mapping_watch__bind_copies(struct mapping_watch *w);
/* Handles one SLED_KIND_MAPPED or SLED_KIND_FORK_HOLD event: wait until
 * the process has stopped, scan (and repair a forked child's text),
 * resume. */
int mapping_watch__on_mapped(struct mapping_watch *w, const struct sled_mapped *e);

/* Frees what the watch allocated. */
void mapping_watch__free(struct mapping_watch *w);

#endif
