/* SPDX-License-Identifier: MIT */
/* trace_stats.h: everything a trace counted instead of recorded, and the
 * one table of its field names.  The names are the trace's vocabulary:
 * the writer stores each field under its name, the reader reads it back by
 * name, and report prints them, so all three share this table. */
#ifndef SLEDTRACE_TRACE_STATS_H
#define SLEDTRACE_TRACE_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Every drop has a field here, is written into the trace and read back. */
struct trace_stats {
	uint64_t events;	    /* events consumed from the ring buffer */
	uint64_t ringbuf_drops;	    /* events the kernel could not queue */
	uint64_t unmatched_exits;   /* exits with no open frame */
	uint64_t inferred_exits;    /* frames closed by FRAME_INFERRED */
	uint64_t unfinished;	    /* frames closed by FRAME_UNFINISHED */
	uint64_t depth_capped;	    /* calls deeper than the writer's cap */
	uint64_t max_depth_dropped; /* calls deeper than --max-depth */
	uint64_t short_dropped;	    /* calls shorter than --min-duration */
	uint64_t gated_out;	    /* calls outside every --under gate */
	uint64_t ignored_sleds;	    /* sled kinds sledtrace does not probe */
	uint64_t coverage_gaps;	    /* windows where probes may not have been live */
	uint64_t switches;	    /* scheduler switches of traced threads (on-CPU time) */
	uint64_t switch_drops;	    /* switches the kernel could not queue */
	/* Returns to a CPU the kernel never reported: a call timed after its
	 * thread left the CPU proves it back (frame_builder__resume). */
	uint64_t switches_inferred;
	uint64_t no_sched; /* 1: recorded with --no-sched, no switches by choice */
	/* Causes (DESIGN.md, "Causes"): wakeups of traced threads, by whom.
	 * A wakeup by a traced thread that had a frame open gives the woken
	 * thread's next frame its cause (wakeups_linked); one by an interrupt,
	 * or by a task outside the traced processes, gives it none. */
	uint64_t wakeups;
	uint64_t wakeups_linked;
	uint64_t wakeups_from_interrupts;
	uint64_t wakeups_from_outside;
	/* of those, from an uninterruptible sleep (a lock of the kernel's, I/O):
	 * they leave the woken thread's cause as it was */
	uint64_t wakeups_uninterruptible;
	uint64_t spawns_linked; /* threads and processes whose creator had a frame open */
	/* record --flow: calls that sent a value, and calls that received one
	 * a send was waiting with (they have that send as cause) */
	uint64_t handoffs;
	uint64_t handoffs_linked;
	uint64_t cause_drops; /* cause records the kernel could not queue */
	uint64_t no_causes;   /* 1: recorded with --no-causes */
	/* record --costs (frame_costs.h): 1 when recorded with it, so that a
	 * trace without costs is not taken for one that spent nothing; and the
	 * cost records the kernel could not queue */
	uint64_t costs;
	uint64_t cost_drops;
	/* Not a count: the probe cost calibrated from the run, in ns per probe
	 * hit - the shortest measured leaf call (frame_builder__finish). */
	uint64_t probe_cost_ns;
	/* Not counts: the full cost of one entry and one exit probe hit of
	 * the kinds the recording used, trap to return, in ns, measured by
	 * record on the machine before the target ran (record/probe_calib.h);
	 * 0 when not measured.  Their sum is C in model/probe_comp.h. */
	uint64_t probe_entry_ns;
	uint64_t probe_exit_ns;
	/* record --budget: the share of the program's time it was given, in
	 * parts per million (0: no budget), and how many selected functions
	 * it left unprobed for it (their time is in their callers' self). */
	uint64_t budget_ppm;
	uint64_t budget_unprobed;
	/* Not a count: the CPU time the traced processes used while recorded
	 * (launch: the command's tree, from its rusage; -p: /proc), probes
	 * included; 0 when unknown.  What a budget is a share of. */
	uint64_t program_cpu_ns;
	/* Not a count: the program's own CPU time over the same run, measured
	 * untraced by record --budget (0: not measured), so that a budgeted
	 * trace can plan the next budget (--budget-from). */
	uint64_t untraced_cpu_ns;
};

struct trace_stat_field {
	const char *name;
	size_t offset; /* of a uint64_t in struct trace_stats */
};

/* All fields of struct trace_stats, in declaration order. */
extern const struct trace_stat_field trace_stat_fields[];
extern const size_t trace_stat_nfields;

/* Field i of st (i < trace_stat_nfields). */
uint64_t *trace_stats__field(struct trace_stats *st, size_t i);
uint64_t trace_stats__get(const struct trace_stats *st, size_t i);
/* Records the kernel could not queue, of calls and of scheduler switches:
 * what every "dropped" a user is told adds up. */
uint64_t trace_stats__ring_lost(const struct trace_stats *st);

#endif
