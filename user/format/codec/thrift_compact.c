// SPDX-License-Identifier: MIT
/* thrift_compact.c: see thrift_compact.h.  Integers are zigzag varints;
 * a field header is (delta << 4 | type) when the id grows by 1..15, else
 * the type byte and the id as a zigzag varint. */
#include <string.h>

#include "format/codec/thrift_compact.h"

static uint64_t zz64(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static void field(struct tc *t, int16_t id, enum tc_type type)
{
	int delta = id - t->last[t->sp];
	uint8_t c;

	if (delta > 0 && delta <= 15) {
		c = (uint8_t)(delta << 4 | type);
		pbuf__raw(&t->b, &c, 1);
	} else {
		c = (uint8_t)type;
		pbuf__raw(&t->b, &c, 1);
		pbuf__varint(&t->b, zz64(id));
	}
	t->last[t->sp] = id;
}

void tc__i32(struct tc *t, int16_t id, int32_t v)
{
	field(t, id, TC_I32);
	pbuf__varint(&t->b, zz64(v));
}

void tc__i64(struct tc *t, int16_t id, int64_t v)
{
	field(t, id, TC_I64);
	pbuf__varint(&t->b, zz64(v));
}

void tc__byte(struct tc *t, int16_t id, int8_t v)
{
	field(t, id, TC_BYTE);
	pbuf__raw(&t->b, &v, 1);
}

void tc__bool(struct tc *t, int16_t id, bool v)
{
	field(t, id, v ? TC_BOOL_TRUE : TC_BOOL_FALSE);
}

void tc__binary(struct tc *t, int16_t id, const void *p, size_t n)
{
	field(t, id, TC_BINARY);
	pbuf__varint(&t->b, n);
	pbuf__raw(&t->b, p, n);
}

void tc__string(struct tc *t, int16_t id, const char *s)
{
	tc__binary(t, id, s, strlen(s));
}

void tc__begin(struct tc *t, int16_t id)
{
	if (id)
		field(t, id, TC_STRUCT);
	if (t->sp + 1 < TC_MAX_NEST)
		t->last[++t->sp] = 0;
	else if (!t->b.err)
		t->b.err = -1; /* deeper than any Parquet structure */
}

void tc__end(struct tc *t)
{
	uint8_t stop = 0;

	pbuf__raw(&t->b, &stop, 1);
	if (t->sp > 0)
		t->sp--;
}

void tc__list(struct tc *t, int16_t id, enum tc_type elem, uint32_t n)
{
	uint8_t c;

	field(t, id, TC_LIST);
	if (n < 15) {
		c = (uint8_t)(n << 4 | elem);
		pbuf__raw(&t->b, &c, 1);
	} else {
		c = (uint8_t)(0xf0 | elem);
		pbuf__raw(&t->b, &c, 1);
		pbuf__varint(&t->b, n);
	}
}

void tc__elem_i32(struct tc *t, int32_t v)
{
	pbuf__varint(&t->b, zz64(v));
}

void tc__elem_string(struct tc *t, const char *s)
{
	size_t n = strlen(s);

	pbuf__varint(&t->b, n);
	pbuf__raw(&t->b, s, n);
}
