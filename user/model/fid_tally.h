/* SPDX-License-Identifier: MIT */
/* fid_tally.h: per function id, the calls that ended and the direct
 * children they had: two increments a call, for what a function's self
 * time holds of probes (model/probe_comp.h; frame_builder__tally).  A hint:
 * when memory runs out it stops growing, and ids past it are not counted. */
#ifndef SLEDTRACE_FID_TALLY_H
#define SLEDTRACE_FID_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fid_tally {
	uint64_t *calls, *children; /* by function id */
	size_t n;
};

/* A call of fid ended; its caller is up when has_up. */
void fid_tally__leave(struct fid_tally *t, uint32_t fid, uint32_t up, bool has_up);
void fid_tally__free(struct fid_tally *t);

#endif
