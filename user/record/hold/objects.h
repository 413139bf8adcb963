/* SPDX-License-Identifier: MIT */
/* objects.h: the set of objects with sleds one recording traces (an
 * executable and its shared objects, of one or several processes).  Each
 * file is opened, decoded and filtered once, whoever maps it, and its
 * functions get a range of trace function ids of their own; the cookie's
 * object field is its index here. */
#ifndef SLEDTRACE_OBJECTS_H
#define SLEDTRACE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"
#include "object/elf_object.h"
#include "object/symbols.h"
#include "object/xray_map.h"
#include "process/ns_copy.h"
#include "probes/exit_policy.h"
#include "probes/probe_plan.h"
#include "select/budget.h"
#include "select/capture.h"
#include "select/select.h"
#include "record/collect/collector.h"

struct traced_object {
	char *path;	 /* as the traced process names it */
	char *open_path; /* what is opened and probed (may be a map_files link) */
	uint64_t dev, ino;
	struct elf_object *elf;
	struct xray_map *map;
	struct symbols *syms;
	bool *selected; /* by XRay id */
	size_t nselected;
	bool *gates; /* by XRay id: --under functions (selected too); NULL: none */
	size_t ngates;
	/* record --capture, by XRay id (NULL: nothing of this object): the
	 * plan of each captured function and its PROBE_CAPTURE_* flags */
	struct capture_fn **capture;
	uint8_t *capture_flags;
	size_t ncaptured;
	uint32_t fid_base; /* trace function id = fid_base + XRay id */
	struct object_plan plan;
	bool rewritten;		/* probed through probe_path, a rewritten copy */
	const char *probe_path; /* not owned (sled_rewrite__path) */
	/* A rewritten copy bound over path for the processes that map it
	 * later (copies.h): probed too, as the same object, so counts of
	 * both inodes add up. */
	struct ns_copy *copy;	     /* owned; NULL: none */
	uint64_t copy_dev, copy_ino; /* as /proc/PID/maps shows them */
	struct object_plan copy_plan;
	bool copy_queued, copy_bound;
	/* Boot-time ns since which the original's probes are live (0: not
	 * yet); attach_failed: they never will be. */
	uint64_t live_ns;
	bool attach_failed;
};

struct object_set_opts {
	const struct select_args *sel;
	bool mangled;
	bool no_xray;		  /* function symbols instead of sleds */
	const char *debug_dir;	  /* --no-xray: where debug files are; NULL: default */
	const char *const *globs; /* --object: paths to keep (fnmatch); none: all */
	size_t nglobs;
	const char *const *under; /* --under: the gate functions' regexes */
	size_t nunder;
	struct capture_set *capture; /* --capture and --flow; NULL: none */
	const struct budget *budget; /* --budget's plan; NULL: none */
};

struct object_set;

/* probe_plan's programs, and the descriptor of the BPF map the capture
 * programs read their specs from (-1: no --capture). */
struct object_probes {
	struct probe_programs progs;
	int capture_specs_fd;
};

int object_set__new(const struct object_set_opts *opts, struct object_set **out);
void object_set__free(struct object_set *s);
/* Opens, decodes and filters one file.  Returns 0 when added, 1 when the
 * file (dev, ino) is in the set already (or is the copy of one), -ENODATA when it has no sleds
 * (or --object leaves it out),
 * another negative errno with err naming the file and the problem. */
int object_set__add(struct object_set *s, const char *path, const char *open_path, uint64_t dev,
		    uint64_t ino, char *err, size_t errlen);
/* The object whose file (or rewritten copy, then *is_copy) is (dev, ino),
 * in /proc/PID/maps' encoding; NULL when none.  is_copy may be NULL. */
struct traced_object *object_set__find(struct object_set *s, uint64_t dev, uint64_t ino,
				       bool *is_copy);
size_t object_set__count(const struct object_set *s);
struct traced_object *object_set__get(struct object_set *s, size_t i);
/* Functions selected over all objects, and all functions. */
size_t object_set__selected(const struct object_set *s);
/* Functions the filter selected but the budget left unprobed. */
size_t object_set__unprobed(const struct object_set *s);
/* Gate functions (--under) over all objects. */
size_t object_set__gates(const struct object_set *s);
size_t object_set__functions(const struct object_set *s);
/* Tells the collector and the frame builder every object and function
 * added since the last call.
 * A name shown by functions of two objects carries its object's file name
 * ("f [libx.so]"): traces and reports key functions by name. */
int object_set__register(struct object_set *s, struct collector *col, struct frame_builder *fb);
/* Queues the probes of every object added since the last call, and those
 * of every copy not queued yet, with exits as the recording's policy has
 * them (exit_policy.h). */
int object_set__queue(struct object_set *s, struct attacher *att,
		      const struct object_probes *probes, const struct exit_policy *exits);

#endif
