/* SPDX-License-Identifier: MIT */
/* probe_plan.h: which probes one object gets, and how its exits are seen.
 *
 * Exit strategies (--exit):
 *   sled       uprobes on EXIT sleds: exact and safe, but each `ret` is
 *              single-stepped by the kernel (~12.5 us a call on our VM).
 *   uretprobe  a return probe per function entry (~0.4 us): fast, but an
 *              exception or panic unwinding through a hijacked frame aborts
 *              the target, and frames deeper than 64 are not hijacked.
 *   infer      no exit probes at all: exits are inferred from the stack
 *              pointer of the thread's next event (collector.h).  Counts and
 *              nesting stay exact; an exit time is the next event's time.
 *   auto       (default) uretprobes wherever no unwinder can walk through
 *              the hijacked frame: every function of an object that cannot
 *              unwind (no exception tables, personality routine or
 *              _Unwind_Resume: plain C), and the leaf functions (no call,
 *              no jump out of their body: x86_leaf.h) of one that can (C++,
 *              Rust); exit sleds for the other functions (inferred exits
 *              under --no-xray, which has no exit sleds).
 * TAIL sleds are probed in every mode so tail calls end at the right time;
 * frames whose exit is lost are closed by the collector. */
#ifndef SLEDTRACE_PROBE_PLAN_H
#define SLEDTRACE_PROBE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/attach.h"
#include "object/elf_object.h"
#include "object/xray_map.h"

enum exit_mode { EXIT_AUTO, EXIT_SLED, EXIT_URETPROBE, EXIT_INFER };

struct probe_programs {
	struct bpf_program *entry, *exit, *tail, *ret;
};

struct object_plan {
	enum exit_mode exits; /* what auto resolved to for non-leaf functions */
	size_t functions;     /* functions selected */
	size_t ret_functions; /* of those, exits by uretprobe */
	size_t sleds;	      /* sleds probed */
	size_t probes;	      /* probes queued (a uretprobe shares its entry sled) */
};

/* Queues obj's probes on a.  selected[id] (1-based XRay ids) picks
 * functions; NULL selects all. */
int probe_plan__queue(struct attacher *a, const struct probe_programs *progs,
		      const struct elf_object *obj, const struct xray_map *map, uint32_t obj_index,
		      enum exit_mode mode, const bool *selected, struct object_plan *out);
const char *probe_plan__exit_name(enum exit_mode m);
/* What mode means for the object as a whole (never EXIT_AUTO); decide it
 * once, it looks at every sled. */
enum exit_mode probe_plan__object_exits(const struct elf_object *obj, const struct xray_map *map,
					enum exit_mode mode);
/* How f's returns are seen: object_exits, or a uretprobe for a leaf under
 * auto. */
enum exit_mode probe_plan__function_exits(const struct elf_object *obj, const struct xray_map *map,
					  const struct xray_function *f, enum exit_mode mode,
					  enum exit_mode object_exits);

#endif
