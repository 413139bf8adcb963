// SPDX-License-Identifier: MIT
/* pbuf.c: see pbuf.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec/pbuf.h"

static int reserve(struct pbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *q;

	if (b->err)
		return b->err;
	if (b->len + n <= b->cap)
		return 0;
	while (cap < b->len + n)
		cap *= 2;
	if (!(q = realloc(b->p, cap)))
		return b->err = -ENOMEM;
	b->p = q;
	b->cap = cap;
	return 0;
}

void pbuf__reset(struct pbuf *b)
{
	b->len = 0;
}

void pbuf__free(struct pbuf *b)
{
	free(b->p);
	*b = (struct pbuf){ 0 };
}

void pbuf__raw(struct pbuf *b, const void *data, size_t n)
{
	if (!n || reserve(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void pbuf__varint(struct pbuf *b, uint64_t v)
{
	if (reserve(b, 10))
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (uint8_t)v;
}

void pbuf__uint(struct pbuf *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pbuf__varint(b, (uint64_t)field << 3);
	pbuf__varint(b, v);
}

void pbuf__sint(struct pbuf *b, uint32_t field, int64_t v)
{
	pbuf__uint(b, field, (uint64_t)v);
}

void pbuf__bytes(struct pbuf *b, uint32_t field, const void *data, size_t n)
{
	pbuf__varint(b, (uint64_t)field << 3 | 2);
	pbuf__varint(b, n);
	pbuf__raw(b, data, n);
}

void pbuf__str(struct pbuf *b, uint32_t field, const char *s)
{
	pbuf__bytes(b, field, s, strlen(s));
}

void pbuf__packed(struct pbuf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = v[i];

		do
			len++;
		while (x >>= 7);
	}
	pbuf__varint(b, (uint64_t)field << 3 | 2);
	pbuf__varint(b, len);
	for (size_t i = 0; i < n; i++)
		pbuf__varint(b, v[i]);
}
