/* SPDX-License-Identifier: MIT */
/* thrift_compact.h: a writer for Thrift's compact protocol, the encoding
 * of Parquet's page headers and footer.  Field ids are delta-encoded
 * against the previous field of the same struct, so nested structs keep a
 * small stack of "last field id". */
#ifndef SLEDTRACE_THRIFT_COMPACT_H
#define SLEDTRACE_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/codec/pbuf.h"

enum tc_type {
	TC_BOOL_TRUE = 1,
	TC_BOOL_FALSE = 2,
	TC_BYTE = 3,
	TC_I16 = 4,
	TC_I32 = 5,
	TC_I64 = 6,
	TC_DOUBLE = 7,
	TC_BINARY = 8,
	TC_LIST = 9,
	TC_STRUCT = 12,
};

#define TC_MAX_NEST 16

struct tc {
	struct pbuf b;
	int16_t last[TC_MAX_NEST];
	int sp;
};

void tc__i32(struct tc *t, int16_t id, int32_t v);
void tc__i64(struct tc *t, int16_t id, int64_t v);
void tc__byte(struct tc *t, int16_t id, int8_t v);
void tc__bool(struct tc *t, int16_t id, bool v);
void tc__binary(struct tc *t, int16_t id, const void *p, size_t n);
void tc__string(struct tc *t, int16_t id, const char *s);
/* A struct field (id > 0) or a list element (id 0), closed by tc__end. */
void tc__begin(struct tc *t, int16_t id);
void tc__end(struct tc *t);
/* A list field header; its n elements follow (tc__begin(t, 0) for structs,
 * tc__elem_* for scalars). */
void tc__list(struct tc *t, int16_t id, enum tc_type elem, uint32_t n);
void tc__elem_i32(struct tc *t, int32_t v);
void tc__elem_string(struct tc *t, const char *s);

#endif
