/* SPDX-License-Identifier: MIT */
/* pbuf.h: a growable byte buffer with protobuf wire-format encoders
 * (varints, tags, length-delimited fields), for writers that emit small
 * messages one at a time (pprof) instead of building a whole message
 * tree with protobuf-c.  A failed allocation sticks in ->err, so callers
 * check once after a run of appends. */
#ifndef SLEDTRACE_PBUF_H
#define SLEDTRACE_PBUF_H

#include <stddef.h>
#include <stdint.h>

struct pbuf {
	uint8_t *p;
	size_t len, cap;
	int err; /* 0 or -ENOMEM */
};

void pbuf__reset(struct pbuf *b);
void pbuf__free(struct pbuf *b);
void pbuf__raw(struct pbuf *b, const void *data, size_t n);
void pbuf__varint(struct pbuf *b, uint64_t v);
/* field as varint (wire type 0); omitted when v is 0 (proto3 default) */
void pbuf__uint(struct pbuf *b, uint32_t field, uint64_t v);
void pbuf__sint(struct pbuf *b, uint32_t field, int64_t v); /* int64, two's complement */
/* field as length-delimited bytes (wire type 2), always written */
void pbuf__bytes(struct pbuf *b, uint32_t field, const void *data, size_t n);
void pbuf__str(struct pbuf *b, uint32_t field, const char *s);
/* packed repeated varints */
void pbuf__packed(struct pbuf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
