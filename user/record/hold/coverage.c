// SPDX-License-Identifier: MIT
/* coverage.c: see coverage.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>

#include "record/hold/coverage.h"
#include "sledtrace.h"

int coverage__add(struct trace_gaps *l, uint32_t pid, const char *object, uint64_t start_ns,
		  uint64_t end_ns, const char *why)
{
	struct trace_gap g = {
		.pid = pid, .object = object, .start_ns = start_ns, .end_ns = end_ns, .why = why
	};

	return trace_gaps__add(l, &g);
}

static const char *reason_text(uint32_t reason)
{
	switch (reason) {
	case SLED_GAP_UNHELD:
		return "its new mapping could not be held (ring buffer full)";
	case SLED_GAP_FORK:
		return "forked while its parent's new mapping was not probed yet, on a kernel "
		       "that cannot stop the child";
	case SLED_GAP_CONTINUED:
		return "resumed by a SIGCONT that was not sledtrace's while it was held";
	default:
		return "unknown reason";
	}
}

static int add_bpf_gap(struct trace_gaps *c, const struct sled_gap_key *k, uint64_t since,
		       const char *(*object_at)(void *, uint64_t, uint64_t, uint64_t *), void *ctx)
{
	uint64_t live = 0;
	const char *obj = k->ino ? object_at(ctx, k->dev, k->ino, &live) : NULL;
	char unknown[96];

	if (k->ino && !obj) {
		snprintf(unknown, sizeof(unknown),
			 "a file never looked at (device %" PRIu64 ":%" PRIu64 ", inode %" PRIu64
			 ")",
			 (uint64_t)(k->dev >> 20), (uint64_t)(k->dev & 0xfffff), (uint64_t)k->ino);
		obj = unknown;
	}
	return coverage__add(c, k->tgid, obj, since, live > since ? live : COVERAGE_OPEN,
			     reason_text(k->reason));
}

int coverage__read_bpf(struct trace_gaps *c, int gaps_fd,
		       const char *(*object_at)(void *ctx, uint64_t dev, uint64_t ino,
						uint64_t *live_ns),
		       void *ctx)
{
	struct sled_gap_key key, next, *prev = NULL;

	while (!bpf_map_get_next_key(gaps_fd, prev, &next)) {
		uint64_t since;
		int err;

		if (!bpf_map_lookup_elem(gaps_fd, &next, &since) &&
		    (err = add_bpf_gap(c, &next, since, object_at, ctx)))
			return err;
		key = next;
		prev = &key;
	}
	return 0;
}

void coverage__warn(const struct trace_gaps *l, size_t max)
{
	char line[1024];

	for (size_t i = 0; i < l->n && i < max; i++) {
		trace_gaps__describe(&l->g[i], line, sizeof(line));
		fprintf(stderr, "sledtrace: warning: coverage gap: %s\n", line);
	}
	if (l->n > max)
		fprintf(stderr,
			"sledtrace: warning: %zu coverage gaps more (sledtrace report lists them "
			"all)\n",
			l->n - max);
}
