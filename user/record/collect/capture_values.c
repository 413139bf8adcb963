// SPDX-License-Identifier: MIT
/* capture_values.c: see capture_values.h.  Texts: integers in decimal,
 * pointers in hex, bools true/false, enums by name (the number when no
 * enumerator has it), strings quoted with \", \\ and \xNN escapes.  A
 * string cut at the bound ends in ... after its quote; a Rust &str or
 * &[u8] longer than the bound also says its length, "(N bytes)".  NULL is
 * NULL; memory that could not be read is <invalid 0xADDR>. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "record/collect/capture_values.h"

/* Room for a quoted, escaped string of SLED_CAP_STR_MAX bytes and more. */
#define TEXT_MAX (SLED_CAP_STR_MAX * 4 + 64)

static uint64_t cut(uint64_t v, uint8_t size, bool sign)
{
	unsigned bits = size && size < 8 ? size * 8u : 64;
	uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;

	v &= mask;
	if (sign && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~mask;
	return v;
}

static void quote(char *out, size_t len, const char *s, size_t n)
{
	size_t o = 0;

	out[o++] = '"';
	for (size_t i = 0; i < n && o + 6 < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '"' || ch == '\\')
			o += (size_t)snprintf(out + o, len - o, "\\%c", ch);
		else if (ch >= 0x20 && ch < 0x7f)
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", ch);
	}
	out[o++] = '"';
	out[o] = 0;
}

/* A string item: the bytes the probe read, as it read them. */
static void string_text(const struct capture_item *it, const struct sled_capture *c, size_t size,
			char *out, size_t len)
{
	uint64_t addr = c->val[it->reg];
	bool pair = it->type != PARAM_CSTRING;
	uint64_t whole = pair ? c->val[it->reg + 1] : 0;
	const char *bytes;
	size_t n;

	if (pair && !whole) {
		snprintf(out, len, "\"\"");
		return;
	}
	if (!addr) {
		snprintf(out, len, "NULL");
		return;
	}
	/* one read: its bytes in str[0]; several: value i's in str[i] */
	bytes = size >= sizeof(*c) ? c->str[it->reg] : size >= SLED_CAPTURE_ONE ? c->str[0] : NULL;
	if (!bytes || (c->invalid >> it->reg) & 1) {
		snprintf(out, len, "<invalid 0x%" PRIx64 ">", addr);
		return;
	}
	n = c->len[it->reg] < SLED_CAP_STR_MAX ? c->len[it->reg] : SLED_CAP_STR_MAX;
	quote(out, len, bytes, n);
	if (!pair && n == SLED_CAP_STR_MAX - 1)
		strcat(out, "...");
	else if (pair && whole > n)
		snprintf(out + strlen(out), len - strlen(out), "... (%" PRIu64 " bytes)", whole);
}

/* Compared at the enum's size: DWARF may give an enumerator of an
 * unsigned byte as negative, or the register hold it sign-extended. */
static const char *enum_name(const struct capture_item *it, uint64_t v)
{
	for (size_t i = 0; i < it->nenums; i++)
		if (cut((uint64_t)it->enums[i].value, it->size, false) == cut(v, it->size, false))
			return it->enums[i].name;
	return NULL;
}

static int attach_one(const struct capture_item *it, const struct sled_capture *c, size_t size,
		      struct fb_thread *t)
{
	uint64_t v = c->val[it->reg];
	char text[TEXT_MAX];
	const char *name;

	switch (it->type) {
	case PARAM_INT:
		return frame_builder__value(t, it->name, VALUE_INT, cut(v, it->size, true), NULL);
	case PARAM_UINT:
		return frame_builder__value(t, it->name, VALUE_UINT, cut(v, it->size, false), NULL);
	case PARAM_BOOL:
		return frame_builder__value(t, it->name, VALUE_BOOL, (v & 0xff) != 0, NULL);
	case PARAM_ENUM:
		v = cut(v, it->size, !it->enum_unsigned);
		if (!(name = enum_name(it, v)))
			name = value__format(it->enum_unsigned ? VALUE_UINT : VALUE_INT, v, text,
					     sizeof(text));
		return frame_builder__value(t, it->name, VALUE_TEXT, v, name);
	case PARAM_CSTRING:
	case PARAM_STR:
	case PARAM_BYTES:
		string_text(it, c, size, text, sizeof(text));
		return frame_builder__value(t, it->name, VALUE_TEXT, v, text);
	default:
		return frame_builder__value(t, it->name, VALUE_POINTER, cut(v, it->size, false),
					    NULL);
	}
}

int capture_values__attach(const struct capture_fn *f, const struct sled_capture *c, size_t size,
			   bool ret, struct fb_thread *t)
{
	int err = 0;

	for (size_t i = 0; i < f->n && !err; i++)
		if (f->items[i].ret == ret && f->items[i].reg < SLED_CAP_NREG)
			err = attach_one(&f->items[i], c, size, t);
	return err;
}
