/* SPDX-License-Identifier: MIT */
/* values.h: values a frame carries besides its times: the arguments a
 * call was given and the value it returned, as record --capture took them
 * (docs/DESIGN.md, "Captured values").  Producers (the collector, the
 * Perfetto reader) attach them to the open frame with frame_builder__value;
 * sinks find them in struct frame.values at leave().  Each value is one
 * text, as every writer shows it, and its kind, for writers with types. */
#ifndef SLEDTRACE_VALUES_H
#define SLEDTRACE_VALUES_H

#include <stdint.h>

enum value_kind {
	VALUE_INT = 0,	   /* signed integer: raw holds it (two's complement) */
	VALUE_UINT = 1,	   /* unsigned integer */
	VALUE_BOOL = 2,	   /* raw 0 or 1 */
	VALUE_POINTER = 3, /* an address, shown in hex */
	VALUE_TEXT = 4,	   /* a string, an enum's name, an invalid read: text only */
};

struct trace_value {
	char *name; /* a parameter's name, or "return" */
	enum value_kind kind;
	uint64_t raw;
	char *text; /* what is shown; for numbers made from raw */
};

/* The values of one frame, in the order they were taken. */
struct frame_values {
	uint32_t n, cap;
	struct trace_value *v;
};

/* The name of a frame's return value. */
#define VALUE_RETURN "return"

/* Appends a value; text NULL makes it from kind and raw.  Returns 0 or
 * -ENOMEM (*fv unchanged then).  *fv may be NULL: it is created. */
int frame_values__add(struct frame_values **fv, const char *name, enum value_kind kind,
		      uint64_t raw, const char *text);
void frame_values__free(struct frame_values *fv);
/* kind and raw as text (decimal, true/false, 0x hex) into buf. */
const char *value__format(enum value_kind kind, uint64_t raw, char *buf, size_t len);

#endif
