// SPDX-License-Identifier: MIT
/* bpf_counters.c: see bpf_counters.h; the table of what each counter
 * becomes, and the per-CPU reads. */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "record/bpf_counters.h"

/* Where a counter goes.  Those with a stats field are in the trace, and
 * what must be told is told from there: the summary line says the drops,
 * report the rest.  Those without one are losses the trace cannot show:
 * each is a warning. */
struct counter_use {
	size_t stat; /* 1 + offset of its field in struct trace_stats; 0: none */
	/* the warning, "N <noun>[<plural>] <what>"; NULL: none */
	const char *noun, *plural, *what;
	bool inexact; /* --strict: the trace is not exact when it is nonzero */
};

#define STAT(f) .stat = 1 + offsetof(struct trace_stats, f)

static const struct counter_use uses[] = {
	[SLED_CTR_DROPS] = { STAT(ringbuf_drops) },
	[SLED_CTR_UNHELD] = { .noun = "new executable mapping",
			      .plural = "s",
			      .what = "could not be reported (ring buffer full); objects with sleds "
				      "they brought may be missing",
			      .inexact = true },
	[SLED_CTR_LOST_CONTROL] = { .noun = "fork or exec notice",
				    .plural = "s",
				    .what = "lost (ring buffer full): children may lack their "
					    "parent's frames, execs their end",
				    .inexact = true },
	/* warned with the names read from /proc instead (record_finish.c) */
	[SLED_CTR_LOST_IDENT] = { 0 },
	[SLED_CTR_UNTRACED] = { .noun = "child process",
				.plural = "es",
				.what = "could not be traced (traced-process map full or out of "
					"memory): their calls are missing",
				.inexact = true },
	[SLED_CTR_GAPS_LOST] = { .noun = "coverage gap",
				 .plural = "s",
				 .what = "could not be noted (gap map full): the trace may miss more "
					 "than it says",
				 .inexact = true },
	[SLED_CTR_GATED] = { STAT(gated_out) },
	[SLED_CTR_GATES_LOST] = { .noun = "--under gate",
				  .plural = "s",
				  .what = "could not open (gate map full): the calls inside them are "
					  "missing",
				  .inexact = true },
	[SLED_CTR_UNREPAIRED] = { .noun = "forked child",
				  .plural = "ren",
				  .what = "could not be stopped for repair (map full): they may crash "
					  "at a probed function their parent had called",
				  .inexact = true },
	[SLED_CTR_SWITCH_DROPS] = { STAT(switch_drops) },
	/* the calls the kernel left out; the collector's filter adds those it
	 * decided itself (frame_filter.c) */
	[SLED_CTR_SHORT] = { STAT(short_dropped) },
	[SLED_CTR_DEEP] = { STAT(max_depth_dropped) },
	[SLED_CTR_CAUSE_DROPS] = { STAT(cause_drops) },
	[SLED_CTR_COST_DROPS] = { STAT(cost_drops) },
};

/* A counter the BPF side adds must say here where it goes. */
_Static_assert(sizeof(uses) / sizeof(uses[0]) == SLED_CTR_MAX, "every counter has a use");

/* The per-CPU values of key in the per-CPU array fd, folded by fold; 0
 * when they cannot be read. */
static uint64_t percpu_fold(int fd, uint32_t key, uint64_t (*fold)(uint64_t, uint64_t))
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t acc = 0, *vals;

	if (ncpu <= 0)
		return 0;
	vals = calloc((size_t)ncpu, sizeof(*vals));
	if (vals && !bpf_map_lookup_elem(fd, &key, vals))
		for (int i = 0; i < ncpu; i++)
			acc = fold(acc, vals[i]);
	free(vals);
	return acc;
}

static uint64_t add(uint64_t acc, uint64_t v)
{
	return acc + v;
}

static uint64_t least_set(uint64_t acc, uint64_t v)
{
	return v && (!acc || v < acc) ? v : acc;
}

uint64_t bpf_counters__get(int fd, uint32_t idx)
{
	return percpu_fold(fd, idx, add);
}

uint64_t bpf_counters__least(int fd, uint32_t key)
{
	return percpu_fold(fd, key, least_set);
}

void bpf_counters__read(struct bpf_counters *c, int fd)
{
	for (uint32_t i = 0; i < SLED_CTR_MAX; i++)
		c->n[i] = bpf_counters__get(fd, i);
}

void bpf_counters__to_stats(const struct bpf_counters *c, struct trace_stats *st)
{
	for (size_t i = 0; i < SLED_CTR_MAX; i++)
		if (uses[i].stat)
			*(uint64_t *)((char *)st + uses[i].stat - 1) = c->n[i];
}

void bpf_counters__warn(const struct bpf_counters *c)
{
	for (size_t i = 0; i < SLED_CTR_MAX; i++)
		if (uses[i].noun && c->n[i])
			fprintf(stderr, "sledtrace: warning: %" PRIu64 " %s%s %s\n", c->n[i],
				uses[i].noun, c->n[i] == 1 ? "" : uses[i].plural, uses[i].what);
}

uint64_t bpf_counters__inexact(const struct bpf_counters *c)
{
	uint64_t n = 0;

	for (size_t i = 0; i < SLED_CTR_MAX; i++)
		if (uses[i].inexact)
			n += c->n[i];
	return n;
}
