/* SPDX-License-Identifier: MIT */
/* bpf_counters.h: what the BPF side counted instead of recording (its
 * per-CPU `counters` map, SLED_CTR_* in include/sledtrace.h), read once
 * when the recording ends.  One table (bpf_counters.c) says what each
 * counter becomes: a field of the trace's stats, a warning, a loss that
 * keeps --strict from calling the trace exact.  Reading, warning and
 * --strict all walk that table, so a new counter is one line there. */
#ifndef SLEDTRACE_BPF_COUNTERS_H
#define SLEDTRACE_BPF_COUNTERS_H

#include <stdint.h>

#include "model/trace_stats.h"
#include "sledtrace.h"

struct bpf_counters {
	uint64_t n[SLED_CTR_MAX]; /* by SLED_CTR_* */
};

/* One counter of the `counters` map fd, summed over CPUs (0 when it
 * cannot be read): for the status line, while recording. */
uint64_t bpf_counters__get(int fd, uint32_t idx);
/* The least nonzero per-CPU value of key in the per-CPU array fd (0: all
 * are 0, or it cannot be read). */
uint64_t bpf_counters__least(int fd, uint32_t key);
/* Reads every counter of the `counters` map fd. */
void bpf_counters__read(struct bpf_counters *c, int fd);
/* Sets the fields of st that are counters. */
void bpf_counters__to_stats(const struct bpf_counters *c, struct trace_stats *st);
/* One `sledtrace: warning:` line for every nonzero counter that has one. */
void bpf_counters__warn(const struct bpf_counters *c);
/* The losses that keep the trace from being exact, apart from the ring's
 * drops (trace_stats__ring_lost counts those). */
uint64_t bpf_counters__inexact(const struct bpf_counters *c);

#endif
