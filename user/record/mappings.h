/* SPDX-License-Identifier: MIT */
/* mappings.h: objects that appear while recording.  The BPF side stops a
 * traced process when it maps a file executable that was never looked at
 * (exec, the dynamic loader, dlopen) and reports it (SLED_KIND_MAPPED);
 * here the process's mappings are read again, every new object with sleds
 * is opened, registered and probed, every file looked at is marked known
 * (so mapping it again costs no stop), and the process is resumed. */
#ifndef SLEDTRACE_MAPPINGS_H
#define SLEDTRACE_MAPPINGS_H

#include <stdint.h>
#include <sys/types.h>

#include "model/frames.h"
#include "probe/attach.h"
#include "probe/probe_plan.h"
#include "record/collector.h"
#include "record/copies.h"
#include "record/objects.h"
#include "sledtrace.h"

struct mapping_watch {
	struct object_set *objs;
	struct attacher *att;
	struct probe_programs progs;
	enum exit_mode exits;
	struct collector *col;
	struct frame_builder *fb;
	int known_fd, held_fd; /* the BPF maps known_files and held */
	struct copies *copies; /* rewritten copies for later processes; NULL: none */
	bool quiet;
	/* What holding cost: from the mapping to the resume, boot-time ns. */
	uint64_t holds, hold_ns_sum, hold_ns_max;
	uint64_t failed; /* objects that could not be attached (warned) */
};

/* Marks every object already in the set known. */
int mapping_watch__mark_objects(struct mapping_watch *w);
/* Reads tgid's executable mappings: new objects with sleds are added and
 * probed, every file is marked known.  No resume. */
int mapping_watch__scan(struct mapping_watch *w, pid_t tgid);
/* Binds the copies queued and attached so far (copies.h). */
int mapping_watch__bind_copies(struct mapping_watch *w);
/* Handles one SLED_KIND_MAPPED event: scan, then resume the process. */
int mapping_watch__on_mapped(struct mapping_watch *w, const struct sled_event *e);

#endif
