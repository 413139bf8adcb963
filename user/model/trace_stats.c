// SPDX-License-Identifier: MIT
/* trace_stats.c: the field table behind trace_stats.h. */
#include "model/trace_stats.h"

#define F(x)                                        \
	{                                           \
#x, offsetof(struct trace_stats, x) \
	}
const struct trace_stat_field trace_stat_fields[] = {
	F(events),
	F(ringbuf_drops),
	F(unmatched_exits),
	F(inferred_exits),
	F(unfinished),
	F(depth_capped),
	F(max_depth_dropped),
	F(short_dropped),
	F(gated_out),
	F(ignored_sleds),
	F(coverage_gaps),
	F(switches),
	F(switch_drops),
	F(switches_inferred),
	F(no_sched),
	F(wakeups),
	F(wakeups_linked),
	F(wakeups_from_interrupts),
	F(wakeups_from_outside),
	F(wakeups_uninterruptible),
	F(spawns_linked),
	F(handoffs),
	F(handoffs_linked),
	F(cause_drops),
	F(no_causes),
	F(costs),
	F(cost_drops),
	F(probe_cost_ns),
	F(probe_entry_ns),
	F(probe_exit_ns),
	F(budget_ppm),
	F(budget_unprobed),
	F(program_cpu_ns),
	F(untraced_cpu_ns),
};
#undef F
const size_t trace_stat_nfields = sizeof(trace_stat_fields) / sizeof(trace_stat_fields[0]);

/* A field added to the struct but not to the table would silently vanish
 * from every trace. */
_Static_assert(sizeof(trace_stat_fields) / sizeof(trace_stat_fields[0]) ==
		       sizeof(struct trace_stats) / sizeof(uint64_t),
	       "every trace_stats field has a name");

uint64_t *trace_stats__field(struct trace_stats *st, size_t i)
{
	return (uint64_t *)((char *)st + trace_stat_fields[i].offset);
}

uint64_t trace_stats__get(const struct trace_stats *st, size_t i)
{
	return *(const uint64_t *)((const char *)st + trace_stat_fields[i].offset);
}

uint64_t trace_stats__ring_lost(const struct trace_stats *st)
{
	return st->ringbuf_drops + st->switch_drops + st->cause_drops + st->cost_drops;
}
