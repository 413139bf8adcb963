// SPDX-License-Identifier: MIT
/* arrow_schema.c: see arrow_schema.h.  An encapsulated IPC message
 * (0xFFFFFFFF, metadata length, a FlatBuffers Message whose header is a
 * Schema, padding to 8) built front to back: every reference points
 * forward, so a referring field is written first (as 0) and patched once
 * its target is placed.  Table slots and union ids are Arrow's
 * Message.fbs and Schema.fbs (docs/exports.md). */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/arrow_schema.h"
#include "format/codec/pbuf.h"

enum { HDR_SCHEMA = 1 };			    /* MessageHeader */
enum { TY_INT = 2, TY_UTF8 = 5, TY_DURATION = 18 }; /* Type */
enum { METADATA_V5 = 4, UNIT_NANOSECOND = 3 };

struct fbf {
	int slot, size; /* size 1, 2 or 4 (4 is also a reference) */
	uint32_t val;
};

static void zeros(struct pbuf *b, size_t n)
{
	static const uint8_t zero[8];

	pbuf__raw(b, zero, n);
}

static void pad_to(struct pbuf *b, size_t align)
{
	zeros(b, (align - b->len % align) % align);
}

static void u16(struct pbuf *b, uint16_t v)
{
	v = htole16(v);
	pbuf__raw(b, &v, 2);
}

static void u32(struct pbuf *b, uint32_t v)
{
	v = htole32(v);
	pbuf__raw(b, &v, 4);
}

/* Points the reference at `at` to `target` (a later position). */
static void patch(struct pbuf *b, size_t at, size_t target)
{
	uint32_t v = htole32((uint32_t)(target - at));

	if (!b->err)
		memcpy(b->p + at, &v, 4);
}

/* A vtable, then its table (4-aligned); returns the table's position and
 * puts where field i landed in pos[i].  Fields are given in slot order. */
static size_t table(struct pbuf *b, const struct fbf *f, int n, size_t *pos)
{
	size_t off[8], t = 4, vt, start;
	int nslots = n ? f[n - 1].slot + 1 : 0;

	for (int i = 0; i < n; i++) {
		t = (t + (size_t)f[i].size - 1) / (size_t)f[i].size * (size_t)f[i].size;
		off[i] = t;
		t += (size_t)f[i].size;
	}
	t = (t + 3) & ~(size_t)3;
	pad_to(b, 2);
	if ((b->len + 4 + 2 * (size_t)nslots) % 4)
		u16(b, 0);
	vt = b->len;
	u16(b, (uint16_t)(4 + 2 * nslots));
	u16(b, (uint16_t)t);
	for (int s = 0; s < nslots; s++) {
		uint16_t o = 0;

		for (int i = 0; i < n; i++)
			if (f[i].slot == s)
				o = (uint16_t)off[i];
		u16(b, o);
	}
	start = b->len;
	u32(b, (uint32_t)(start - vt)); /* vtable = table - this */
	for (int i = 0; i < n; i++) {
		zeros(b, start + off[i] - b->len);
		pos[i] = b->len;
		if (f[i].size == 1)
			pbuf__raw(b, &(uint8_t){ (uint8_t)f[i].val }, 1);
		else if (f[i].size == 2)
			u16(b, (uint16_t)f[i].val);
		else
			u32(b, f[i].val);
	}
	zeros(b, start + t - b->len);
	return start;
}

static void string(struct pbuf *b, size_t ref, const char *s)
{
	pad_to(b, 4);
	patch(b, ref, b->len);
	u32(b, (uint32_t)strlen(s));
	pbuf__raw(b, s, strlen(s) + 1);
}

static void type_table(struct pbuf *b, size_t ref, enum parquet_kind k)
{
	struct fbf ints[] = { { 0, 4, k == PARQUET_U32 ? 32 : 64 }, { 1, 1, 0 } };
	struct fbf dur[] = { { 0, 2, UNIT_NANOSECOND } };
	size_t pos[2], at;

	if (k == PARQUET_U32 || k == PARQUET_U64)
		at = table(b, ints, 2, pos);
	else if (k == PARQUET_DURATION_NS)
		at = table(b, dur, 1, pos);
	else
		at = table(b, NULL, 0, pos); /* Utf8 {} */
	patch(b, ref, at);
}

static uint8_t type_id(enum parquet_kind k)
{
	return k == PARQUET_STRING ? TY_UTF8 : k == PARQUET_DURATION_NS ? TY_DURATION : TY_INT;
}

/* Field{name 0, nullable 1, type_type 2, type 3, children 5}. */
static void field(struct pbuf *b, size_t ref, const struct parquet_column *c)
{
	struct fbf f[] = {
		{ 0, 4, 0 }, { 1, 1, 0 }, { 2, 1, type_id(c->kind) }, { 3, 4, 0 }, { 5, 4, 0 }
	};
	size_t pos[5];

	patch(b, ref, table(b, f, 5, pos));
	string(b, pos[0], c->name);
	type_table(b, pos[3], c->kind);
	pad_to(b, 4);
	patch(b, pos[4], b->len);
	u32(b, 0); /* no children; readers want the vector present */
}

static void message(struct pbuf *b, const struct parquet_column *cols, uint32_t ncols)
{
	struct fbf msg[] = { { 0, 2, METADATA_V5 }, { 1, 1, HDR_SCHEMA }, { 2, 4, 0 } };
	struct fbf schema[] = { { 1, 4, 0 } }; /* endianness 0 (little) is the default */
	size_t root, pos[3], spos[1], vec;

	root = b->len;
	u32(b, 0);
	patch(b, root, table(b, msg, 3, pos));
	patch(b, pos[2], table(b, schema, 1, spos));
	pad_to(b, 4);
	patch(b, spos[0], b->len);
	u32(b, ncols);
	vec = b->len;
	for (uint32_t i = 0; i < ncols; i++)
		u32(b, 0);
	for (uint32_t i = 0; i < ncols; i++)
		field(b, vec + 4 * i, &cols[i]);
}

static char *base64(const uint8_t *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*o++ = a[v >> 18 & 63];
		*o++ = a[v >> 12 & 63];
		*o++ = i + 1 < n ? a[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? a[v & 63] : '=';
	}
	*o = '\0';
	return s;
}

int arrow_schema__base64(const struct parquet_column *cols, uint32_t ncols, char **out)
{
	struct pbuf fb = { 0 }, msg = { 0 };
	int err = 0;

	message(&fb, cols, ncols);
	pad_to(&fb, 8);
	u32(&msg, 0xffffffffu);
	u32(&msg, (uint32_t)fb.len);
	pbuf__raw(&msg, fb.p, fb.len);
	if (fb.err || msg.err || !(*out = base64(msg.p, msg.len)))
		err = -ENOMEM;
	pbuf__free(&fb);
	pbuf__free(&msg);
	return err;
}
