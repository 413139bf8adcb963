// SPDX-License-Identifier: MIT
/* perfetto_costs.c: see perfetto_costs.h.  Only counts that are not 0 are
 * written, so a trace recorded without --costs, or a call that spent
 * nothing, has no more bytes than before. */
#include <stdio.h>
#include <string.h>

#include "arch/syscall_names.h"
#include "perfetto_costs.h"

enum { DA_UINT = 3, DA_NAME = 10, TE_DEBUG_ANNOTATIONS = 4 };

static void uint_ann(struct pbuf *b, const char *name, uint64_t v)
{
	size_t a = pbuf__open(b, TE_DEBUG_ANNOTATIONS);

	pbuf__str(b, DA_NAME, name);
	pbuf__uint_set(b, DA_UINT, v);
	pbuf__close(b, a);
}

void pkt_costs(struct pbuf *b, const struct frame_costs *c)
{
	char name[64];

	for (int k = 0; k < COST_NKINDS; k++) {
		if (c->self[k])
			uint_ann(b, cost_names[k], c->self[k]);
		if (c->total[k] != c->self[k]) {
			snprintf(name, sizeof(name), "%s_total", cost_names[k]);
			uint_ann(b, name, c->total[k]);
		}
	}
	for (uint32_t i = 0; i < c->nsyscalls; i++) {
		const char *s = syscall_name(c->syscalls[i].nr);

		if (s)
			snprintf(name, sizeof(name), "syscall.%s", s);
		else
			snprintf(name, sizeof(name), "syscall.nr_%u", c->syscalls[i].nr);
		uint_ann(b, name, c->syscalls[i].count);
	}
}

/* One annotation's count: system calls come by name (their sum is the
 * "syscalls" annotation, not read again), the rest by kind. */
static int cost_of(struct fb_thread *t, const char *name, uint64_t v)
{
	int64_t nr;
	int k;

	if (!strncmp(name, "syscall.", 8)) {
		/* a name this build's headers do not have still counts */
		if ((nr = syscall_number(name + 8)) < 0)
			nr = UINT32_MAX;
		return frame_builder__cost(t, COST_SYSCALLS, v, (uint32_t)nr);
	}
	k = cost_kind__parse(name);
	if (k < 0 || k == COST_SYSCALLS)
		return 0;
	return frame_builder__cost(t, (enum cost_kind)k, v, 0);
}

int perfetto_args__costs(struct fb_thread *t, const perfetto_event *te)
{
	int err = 0;

	for (size_t i = 0; te && i < te->n_debug_annotations && !err; i++) {
		const Perfetto__Protos__DebugAnnotation *a = te->debug_annotations[i];

		if (a->name && a->has_uint_value && a->uint_value)
			err = cost_of(t, a->name, a->uint_value);
	}
	return err;
}
