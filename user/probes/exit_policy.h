/* SPDX-License-Identifier: MIT */
/* exit_policy.h: what --exit means for one recording and for each object.
 * The option names six modes, but each answers two questions: which file
 * an object's probes go on (a rewritten copy or the original) and how its
 * returns are seen (exit sleds, uretprobes, inferred, or mixed).  auto is
 * resolved here and nowhere else: from what the kernel runs cheaply and
 * whether objects can be copies at all (exit_policy__resolve), then from
 * what the object is (exit_policy__object).
 *
 * Exit strategies (--exit):
 *   rewrite    uprobes on entry, exit and tail sleds of a copy of the object
 *              whose sleds start with a 5-byte nop (process/sled_rewrite.h),
 *              which the kernel runs as a call (~0.3 us a hit on our VM):
 *              exact exit times, no return address touched.  Only for
 *              objects the launched command maps from the copy; objects
 *              some process already maps keep mixed on their original.
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
 *              no jump out of their body: arch_is_leaf) of one that can (C++,
 *              Rust); inferred exits for the other functions.
 *   auto       (default) rewrite where the copy can be used and the kernel
 *              runs nop5 probes as calls, mixed elsewhere: never a
 *              single-step, never an abort.
 * TAIL sleds are probed in every mode so tail calls end at the right time;
 * frames whose exit is lost are closed by the collector. */
#ifndef SLEDTRACE_EXIT_POLICY_H
#define SLEDTRACE_EXIT_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "object/elf_object.h"

/* --exit as given, in exit_mode_names' order. */
enum exit_mode { EXIT_AUTO, EXIT_SLED, EXIT_URETPROBE, EXIT_INFER, EXIT_REWRITE, EXIT_MIXED };
/* The option's values, NULL-terminated: the one table of exit names. */
extern const char *const exit_mode_names[];

/* Which file an object's probes go on. */
enum exit_copy {
	EXIT_COPY_ORIGINAL,  /* the file processes already map */
	EXIT_COPY_REWRITTEN, /* a copy with nop5 sleds, run by the launched tree */
};

/* How an object's returns are seen. */
enum exit_returns {
	RETURNS_SLED,	   /* probes on the exit sleds */
	RETURNS_URETPROBE, /* a return probe with every entry probe */
	RETURNS_INFER,	   /* none: from the stack pointer of the next event */
	RETURNS_MIXED,	   /* per object and function (exit_policy__object) */
};
/* The mode that names r: "sled", "uretprobe", "infer" or "mixed". */
const char *exit_returns__name(enum exit_returns r);

/* What a recording can do, known when it starts. */
struct exit_env {
	bool command;	/* it launches the command (not -p): copies can be bound first */
	bool sleds;	/* objects have XRay sleds (not --no-xray) */
	bool nop5_fast; /* the kernel runs a uprobe on a 5-byte nop as a call */
};

/* --exit resolved for one recording. */
struct exit_policy {
	/* What the launched command and its tree map: rewritten copies (the
	 * command gets a mount namespace of its own), or the originals. */
	enum exit_copy copy;
	/* --exit=rewrite: a copy that cannot be used is an error; under auto
	 * that object falls back to mixed on its original. */
	bool copy_required;
	/* Returns of objects probed on their original file; a copy's are
	 * always seen at its exit sleds. */
	enum exit_returns returns;
};

/* Sled and rewrite need exit sleds: with --no-xray (!sleds) they are
 * refused with one line in why.  Returns 0 or -ENOTSUP. */
int exit_policy__check(enum exit_mode mode, bool sleds, char *why, size_t whylen);
/* Resolves mode for a recording in env.  Returns 0, or -ENOTSUP with one
 * line in why when env cannot have mode at all (exit_policy__check;
 * rewrite for running processes, which keep the file they mapped). */
int exit_policy__resolve(enum exit_mode mode, const struct exit_env *env, struct exit_policy *out,
			 char *why, size_t whylen);

/* How one object's returns are seen. */
struct object_exits {
	enum exit_copy copy;
	enum exit_returns returns; /* sled, uretprobe or infer, never mixed */
	bool leaf_uretprobes;	   /* mixed: leaf functions get a uretprobe */
};
/* obj's exits under p when probed through copy: a copy's at its exit
 * sleds; mixed is uretprobes for an object no unwinder walks through (C),
 * else inferred exits with uretprobes for its leaf functions. */
struct object_exits exit_policy__object(const struct exit_policy *p, const struct elf_object *obj,
					enum exit_copy copy);

#endif
