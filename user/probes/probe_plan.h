/* SPDX-License-Identifier: MIT */
/* probe_plan.h: which probes one object gets: entry and tail sleds always,
 * and for its returns what exit_policy.h decided for the object (exit
 * sleds, a uretprobe on the entry sled, or nothing), leaf function by leaf
 * function under mixed. */
#ifndef SLEDTRACE_PROBE_PLAN_H
#define SLEDTRACE_PROBE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/elf_object.h"
#include "object/xray_map.h"
#include "probes/attach.h"
#include "probes/exit_policy.h"

struct probe_programs {
	struct bpf_program *entry, *exit, *tail, *ret;
	/* record --capture: what replaces entry, and exit or ret, on the
	 * functions whose values are taken (may be NULL when none are) */
	struct bpf_program *cap_entry, *cap_exit, *cap_ret;
};

/* Which functions of an object get probes, by XRay id: selected ones,
 * and among them the gates of record --under (NULL: none). */
struct probe_choice {
	const bool *selected; /* NULL: all */
	const bool *gates;
	const uint8_t *capture; /* PROBE_CAPTURE_* by XRay id; NULL: none */
};
/* probe_plan__queue's capture[id]: which of a function's values are taken. */
#define PROBE_CAPTURE_ARGS 1 /* at its entry sled */
#define PROBE_CAPTURE_RET 2  /* at its returns (exit sleds or its uretprobe) */

struct object_plan {
	size_t captured;	   /* functions with a capture probe */
	enum exit_copy copy;	   /* the file probed */
	enum exit_returns returns; /* for the functions that are not leaves under mixed */
	size_t functions;	   /* functions selected */
	size_t ret_functions;	   /* of those, exits by uretprobe */
	size_t sleds;		   /* sleds probed */
	size_t probes;		   /* probes queued (a uretprobe shares its entry sled) */
};

/* Queues obj's probes on a, on the file path (NULL: obj's own; else a
 * rewritten copy of it) with exits as exit_policy__object gave them.
 * selected[id] (1-based XRay ids) picks functions; NULL selects all.
 * capture[id] (PROBE_CAPTURE_*, NULL: none) puts capture programs on them. */
int probe_plan__queue(struct attacher *a, const struct probe_programs *progs,
		      const struct elf_object *obj, const char *path, const struct xray_map *map,
		      uint32_t obj_index, const struct object_exits *exits,
		      const struct probe_choice *choice, struct object_plan *out);
/* For the status line: "rewritten sleds", "uretprobe", or
 * "infer, uretprobe for 12 leaf functions" under mixed. */
const char *probe_plan__describe(const struct object_plan *p, char *buf, size_t len);
/* How f's returns are seen: the object's, or a uretprobe for a leaf when
 * exits asks for leaf uretprobes. */
enum exit_returns probe_plan__function_returns(const struct elf_object *obj,
					       const struct xray_map *map,
					       const struct xray_function *f,
					       const struct object_exits *exits);

#endif
