/* SPDX-License-Identifier: MIT */
/* pbuf.h: the protobuf encoder of every protobuf sledtrace writes (the
 * Perfetto trace, pprof profiles): a growable byte buffer and the wire
 * format's pieces (varints, tags, length-delimited fields, nested
 * messages).  Messages are written field by field straight into the
 * buffer, in the order the caller chooses, with no message tree to build.
 * The Perfetto writer runs it once per traced call, so the small pieces
 * are inline.  A failed allocation sticks in ->err and turns every later
 * append into a no-op, so callers check once after a run of appends. */
#ifndef SLEDTRACE_PBUF_H
#define SLEDTRACE_PBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pbuf {
	uint8_t *p;
	size_t len, cap;
	int err; /* 0 or -ENOMEM */
};

enum pbuf_wire { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2, PB_FIXED32 = 5 };

/* Room for n more bytes; 0 or the sticky error. */
int pbuf__grow(struct pbuf *b, size_t n);
static inline int pbuf__reserve(struct pbuf *b, size_t n)
{
	if (b->err)
		return b->err;
	return b->len + n <= b->cap ? 0 : pbuf__grow(b, n);
}

static inline size_t pbuf__varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Writes v at p, which has room for pbuf__varint_len(v) bytes; returns the
 * end. */
static inline uint8_t *pbuf__put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline void pbuf__varint(struct pbuf *b, uint64_t v)
{
	if (!pbuf__reserve(b, 10))
		b->len = (size_t)(pbuf__put_varint(b->p + b->len, v) - b->p);
}

static inline void pbuf__tag(struct pbuf *b, uint32_t field, enum pbuf_wire wire)
{
	pbuf__varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field, always written: a proto2 optional that is set. */
static inline void pbuf__uint_set(struct pbuf *b, uint32_t field, uint64_t v)
{
	pbuf__tag(b, field, PB_VARINT);
	pbuf__varint(b, v);
}

/* A varint field omitted when v is 0 (proto3's default). */
static inline void pbuf__uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	if (v)
		pbuf__uint_set(b, field, v);
}

/* An int32 or int64 field, always written: two's complement, a negative
 * int32 sign-extended to ten bytes as the wire format wants. */
static inline void pbuf__sint_set(struct pbuf *b, uint32_t field, int64_t v)
{
	pbuf__uint_set(b, field, (uint64_t)v);
}

/* Writing at a cursor, for hot paths: pbuf__reserve room for the worst
 * case once, then write from b->p + b->len with these and set b->len to
 * the end.  No checks, and no reloads of the buffer between the bytes. */
static inline uint8_t *pbuf__put_tag(uint8_t *p, uint32_t field, enum pbuf_wire wire)
{
	return pbuf__put_varint(p, (uint64_t)field << 3 | wire);
}
static inline uint8_t *pbuf__put_uint(uint8_t *p, uint32_t field, uint64_t v)
{
	return pbuf__put_varint(pbuf__put_tag(p, field, PB_VARINT), v);
}
static inline uint8_t *pbuf__put_bytes(uint8_t *p, uint32_t field, const void *data, size_t n)
{
	p = pbuf__put_varint(pbuf__put_tag(p, field, PB_LEN), n);
	memcpy(p, data, n);
	return p + n;
}

/* A nested message (or any length-delimited field whose length is known
 * only once it is written): open writes the tag and one byte for the
 * length, *at; close fills it in, moving the body up when the length needs
 * more bytes (bodies of 128 bytes and more: room for PBUF_LONG_LEN more
 * bytes per open message must be reserved). */
#define PBUF_LONG_LEN 4
uint8_t *pbuf__put_close_long(uint8_t *at, uint8_t *end);
static inline uint8_t *pbuf__put_open(uint8_t *p, uint32_t field, uint8_t **at)
{
	*at = pbuf__put_tag(p, field, PB_LEN);
	return *at + 1;
}
static inline uint8_t *pbuf__put_close(uint8_t *at, uint8_t *end)
{
	size_t n = (size_t)(end - at - 1);

	if (n >= 0x80)
		return pbuf__put_close_long(at, end);
	*at = (uint8_t)n;
	return end;
}

/* The same, appended: open returns where the length goes, for close. */
static inline size_t pbuf__open(struct pbuf *b, uint32_t field)
{
	pbuf__tag(b, field, PB_LEN);
	if (pbuf__reserve(b, 1))
		return 0;
	b->p[b->len] = 0;
	return b->len++;
}
static inline void pbuf__close(struct pbuf *b, size_t at)
{
	if (b->err)
		return;
	if (b->len - at - 1 < 0x80)
		b->p[at] = (uint8_t)(b->len - at - 1);
	else if (!pbuf__reserve(b, PBUF_LONG_LEN))
		b->len = (size_t)(pbuf__put_close_long(b->p + at, b->p + b->len) - b->p);
}

void pbuf__reset(struct pbuf *b);
void pbuf__free(struct pbuf *b);
void pbuf__raw(struct pbuf *b, const void *data, size_t n);
/* field as length-delimited bytes (wire type 2), always written */
void pbuf__bytes(struct pbuf *b, uint32_t field, const void *data, size_t n);
/* A string field; s NULL: omitted (a proto2 optional that is not set). */
void pbuf__str(struct pbuf *b, uint32_t field, const char *s);
/* packed repeated varints; nothing when n is 0 */
void pbuf__packed(struct pbuf *b, uint32_t field, const uint64_t *v, size_t n);

#endif
