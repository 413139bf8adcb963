// SPDX-License-Identifier: MIT
/* values.c: see values.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/values.h"
#include "util/num_text.h"

const char *value__format(enum value_kind kind, uint64_t raw, char *buf, size_t len)
{
	char tmp[NUM_TEXT_MAX + 1];
	size_t n;

	switch (kind) {
	case VALUE_INT:
		n = num_text__i64(tmp, (int64_t)raw);
		break;
	case VALUE_BOOL:
		n = raw ? 4 : 5;
		memcpy(tmp, raw ? "true" : "false", n);
		break;
	case VALUE_POINTER:
		n = num_text__hex(tmp, raw);
		break;
	default:
		n = num_text__u64(tmp, raw);
		break;
	}
	if (!len)
		return buf;
	if (n >= len)
		n = len - 1;
	memcpy(buf, tmp, n);
	buf[n] = 0;
	return buf;
}

int frame_values__add(struct frame_values **fv, const char *name, enum value_kind kind,
		      uint64_t raw, const char *text)
{
	struct frame_values *f = *fv;
	struct trace_value v = { .kind = kind, .raw = raw };
	char num[32];

	if (!f && !(f = calloc(1, sizeof(*f))))
		return -ENOMEM;
	*fv = f;
	if (f->n == f->cap) {
		uint32_t cap = f->cap ? f->cap * 2 : 4;
		struct trace_value *nv = realloc(f->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = cap;
	}
	v.name = strdup(name);
	v.text = strdup(text ? text : value__format(kind, raw, num, sizeof(num)));
	if (!v.name || !v.text) {
		free(v.name);
		free(v.text);
		return -ENOMEM;
	}
	f->v[f->n++] = v;
	return 0;
}

void frame_values__free(struct frame_values *fv)
{
	if (!fv)
		return;
	for (uint32_t i = 0; i < fv->n; i++) {
		free(fv->v[i].name);
		free(fv->v[i].text);
	}
	free(fv->v);
	free(fv);
}
