/* SPDX-License-Identifier: MIT */
/* probe_calib.h: what one probe hit costs on this machine, whole (trap,
 * BPF program, return to user space), measured by record before the
 * target runs.  The run's shortest leaf measures only the part of a hit
 * between the two timestamps of a call; the part outside them lands in the
 * caller, and on a machine whose traps are slow it is most of the cost
 * (model/probe_comp.h, docs/DESIGN.md "Probe cost").
 *
 * How: the calibration program (bpf/calib.h: the clock, a ring record
 * reserved and discarded) is attached, in sledtrace's own process only, to
 * functions of sledtrace's own that start with the bytes the recording's
 * probes hit (arch_probe_site), and batches of calls are timed against an
 * unprobed twin, interleaved; ns per hit = median over groups of the
 * batches' minimum difference.  A few hundred hits per kind: 2-6 ms where
 * a hit costs 2-6 us, and the links' close, a grace period, before the
 * target runs (probe_calib.c says why not later).  Once: a second measure
 * after the run would close its links while the processes of -p, or those
 * a command left, may hold returns that the close must wait for.  Anything
 * that fails leaves a figure at 0: the trace then says nothing was
 * measured and readers fall back to the shortest leaf alone. */
#ifndef SLEDTRACE_PROBE_CALIB_H
#define SLEDTRACE_PROBE_CALIB_H

#include <stdint.h>

#include "probes/exit_policy.h"

struct sledtrace_bpf;

struct probe_calib {
	uint64_t entry_ns; /* one entry hit of the kind the recording uses; 0 unknown */
	uint64_t exit_ns;  /* one exit hit (an exit sled of a copy); 0 unknown */
	uint64_t took_ns;  /* how long measuring took */
};

/* Measures the probe kind the recording uses under exits when it runs a
 * rewritten copy (one for entries and exits: every sled starts with the
 * same instruction); a recording of originals is not measured
 * (probe_calib.c says why).  Never fails: *out is 0 where it could not
 * measure. */
void probe_calib__measure(const struct sledtrace_bpf *skel, const struct exit_policy *exits,
			  struct probe_calib *out);

#endif
