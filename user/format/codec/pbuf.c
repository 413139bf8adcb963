// SPDX-License-Identifier: MIT
/* pbuf.c: see pbuf.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec/pbuf.h"

int pbuf__grow(struct pbuf *b, size_t n)
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

uint8_t *pbuf__put_close_long(uint8_t *at, uint8_t *end)
{
	size_t body = (size_t)(end - at - 1), more = pbuf__varint_len(body) - 1;

	memmove(at + 1 + more, at + 1, body);
	pbuf__put_varint(at, body);
	return end + more;
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
	if (!n || pbuf__reserve(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

void pbuf__bytes(struct pbuf *b, uint32_t field, const void *data, size_t n)
{
	pbuf__tag(b, field, PB_LEN);
	pbuf__varint(b, n);
	pbuf__raw(b, data, n);
}

void pbuf__str(struct pbuf *b, uint32_t field, const char *s)
{
	if (s)
		pbuf__bytes(b, field, s, strlen(s));
}

void pbuf__packed(struct pbuf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += pbuf__varint_len(v[i]);
	pbuf__tag(b, field, PB_LEN);
	pbuf__varint(b, len);
	for (size_t i = 0; i < n; i++)
		pbuf__varint(b, v[i]);
}
