/* SPDX-License-Identifier: MIT */
/* probe_plan.h: which probes one object gets, and how its exits are seen.
 *
 * Exit strategies (--exit):
 *   rewrite    uprobes on entry, exit and tail sleds of a copy of the object
 *              whose sleds start with a 5-byte nop (sled_rewrite.h), which
 *              the kernel runs as a call (~0.3 us a hit on our VM): exact
 *              exit times, no return address touched.  Only for objects the
 *              launched command maps from the copy; record decides.
 *   sled       uprobes on the original EXIT sleds: exact and safe, but each
 *              `ret` is single-stepped by the kernel (~12-25 us a call).
 *   uretprobe  a return probe per function entry (~0.4 us): fast, but an
 *              exception or panic unwinding through a hijacked frame aborts
 *              the target, and frames deeper than 64 are not hijacked.
 *   infer      no exit probes at all: exits are inferred from the stack
 *              pointer of the thread's next event (collector.h).  Counts and
 *              nesting stay exact; an exit time is the next event's time.
 *   mixed      uretprobes wherever no unwinder can walk through the
 *              hijacked frame: every function of an object that cannot
 *              unwind (no exception tables, personality routine or
 *              _Unwind_Resume: plain C), and the leaf functions (no call,
 *              no jump out of their body: x86_leaf.h) of one that can (C++,
 *              Rust); inferred exits for the other functions.
 *   auto       (default) rewrite where the copy can be used, mixed
 *              elsewhere: never a single-step, never an abort.
 * TAIL sleds are probed in every mode so tail calls end at the right time;
 * frames whose exit is lost are closed by the collector. */
#ifndef SLEDTRACE_PROBE_PLAN_H
#define SLEDTRACE_PROBE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/attach.h"
#include "object/elf_object.h"
#include "object/xray_map.h"

enum exit_mode { EXIT_AUTO, EXIT_SLED, EXIT_URETPROBE, EXIT_INFER, EXIT_REWRITE, EXIT_MIXED };

struct probe_programs {
	struct bpf_program *entry, *exit, *tail, *ret;
};

struct object_plan {
	enum exit_mode exits; /* what auto resolved to for non-leaf functions */
	size_t functions;     /* functions selected */
	size_t ret_functions; /* of those, exits by uretprobe */
	size_t sleds;	      /* sleds probed */
	size_t probes;	      /* probes queued (a uretprobe shares its entry sled) */
	bool rewritten;	      /* EXIT_REWRITE: the sleds of a rewritten copy */
};

/* Queues obj's probes on a.  selected[id] (1-based XRay ids) picks
 * functions; NULL selects all. */
int probe_plan__queue(struct attacher *a, const struct probe_programs *progs,
		      const struct elf_object *obj, const struct xray_map *map, uint32_t obj_index,
		      enum exit_mode mode, const bool *selected, struct object_plan *out);
/* Same, probing the object through path (a rewritten copy of it). */
int probe_plan__queue_at(struct attacher *a, const struct probe_programs *progs,
			 const struct elf_object *obj, const char *path, const struct xray_map *map,
			 uint32_t obj_index, enum exit_mode mode, const bool *selected,
			 struct object_plan *out);
const char *probe_plan__exit_name(enum exit_mode m);
/* For the status line: "rewritten sleds", "uretprobe", or
 * "infer, uretprobe for 12 leaf functions" under mixed. */
const char *probe_plan__describe(const struct object_plan *p, char *buf, size_t len);
/* What mode means for the object as a whole (never EXIT_AUTO); decide it
 * once, it looks at every sled. */
enum exit_mode probe_plan__object_exits(const struct elf_object *obj, const struct xray_map *map,
					enum exit_mode mode);
/* How f's returns are seen: object_exits, or a uretprobe for a leaf under
 * auto and mixed. */
enum exit_mode probe_plan__function_exits(const struct elf_object *obj, const struct xray_map *map,
					  const struct xray_function *f, enum exit_mode mode,
					  enum exit_mode object_exits);

#endif
