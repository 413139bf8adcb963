/* SPDX-License-Identifier: MIT */
/* capture.h: record --capture=SPEC, which functions' arguments and return
 * values a recording takes, and how each is shown.
 *
 * SPEC is REGEX or REGEX:ITEMS.  REGEX picks functions as -F does
 * (filter.h: POSIX ERE over the display and the mangled name); ITEMS is a
 * comma-separated list of
 *     N[/FMT]    the Nth integer argument register, in the ABI's order
 *                (1..SLED_CAP_NREG; include/arch/ names them)
 *     ret[/FMT]  the return value (the first return register)
 * FMT is d (signed), u (unsigned), x (hex), b (bool), s (a NUL-terminated
 * string at the address) or S (bytes at the address, their count in the
 * next register: Rust &str), d/u/x with an optional width in bits (d32).
 * Without FMT an item takes its type from DWARF, else x.  REGEX alone
 * takes every parameter DWARF places in a register and the return value
 * (without DWARF: every argument register and the return, raw).  The
 * split is at the last ':' that is not part of '::', so C++ names need no
 * escaping.  The first SPEC that matches a function decides.
 *
 * record --flow=SEND:N=RECV:M (docs/DESIGN.md, "Causes") is a pair of such
 * specs, SEND:N/x and RECV:M/x, that also give the functions a role: a
 * call of a SEND function whose argument N equals a later RECV call's
 * argument M causes that call (a hand-off).  SEND may be the word
 * `stack`: a RECV call whose argument M points into the stack of another
 * thread is caused by that thread's open frame whose stack holds the
 * address (a job built on its pusher's stack, as rayon's are).  Flows come
 * before the --capture specs, so a function in both is a flow's. */
#ifndef SLEDTRACE_CAPTURE_H
#define SLEDTRACE_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/params.h"
#include "sledtrace.h"

/* One value to show.  type PARAM_POINTER is shown in hex (x). */
struct capture_item {
	char *name; /* the parameter's, "argN" without DWARF, or "return" */
	bool ret;
	uint8_t reg; /* below SLED_CAP_NREG at entry; 0 at return */
	enum param_type type;
	uint8_t size;			/* bytes an integer is cut to: 1, 2, 4, 8 */
	bool enum_unsigned;		/* an enum whose underlying type is unsigned */
	struct param_enumerator *enums; /* owned */
	size_t nenums;
};

/* What one function's capture probes read and show. */
struct capture_fn {
	struct capture_item *items;
	size_t n;
	bool args, ret; /* capture at its entry, at its returns */
	struct sled_capture_spec entry_spec, ret_spec;
	/* --flow: the register whose value it sends or receives, or -1 */
	int8_t flow_send, flow_recv;
	bool flow_by_stack; /* a receiver whose value is an address on a stack */
};

struct capture_set;

/* The --flow SPECs a known runtime's name stands for ("rayon"), NULL-
 * terminated; NULL when name is no such name. */
const char *const *capture_known_flows(const char *name);
/* Parses the specs and the flows; a bad one is -EINVAL with err saying
 * which and why. */
int capture_set__new(const char *const *specs, size_t n, const char *const *flows, size_t nflows,
		     struct capture_set **out, char *err, size_t errlen);
/* After every function was planned: 0, or -EINVAL with err naming a flow
 * whose sending or receiving side matched no function, or whose argument
 * the function does not take in that register (its DWARF says so). */
int capture_set__check_flows(const struct capture_set *cs, char *err, size_t errlen);
void capture_set__free(struct capture_set *cs);
/* The plan for the function (name, mangled: mangled may be NULL) at addr
 * of the object pr reads; *out NULL when no SPEC matches it or it has
 * nothing to capture.  0 or -ENOMEM. */
int capture_set__plan(struct capture_set *cs, const char *name, const char *mangled,
		      struct param_reader *pr, uint64_t addr, struct capture_fn **out);
void capture_fn__free(struct capture_fn *f);

#endif
