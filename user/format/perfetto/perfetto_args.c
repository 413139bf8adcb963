// SPDX-License-Identifier: MIT
/* perfetto_args.c: see perfetto_args.h. */
#include <string.h>

#include "format/perfetto/perfetto_args.h"
#include "format/perfetto/perfetto_layout.h"

static const Perfetto__Protos__DebugAnnotation *find(const perfetto_event *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_debug_annotations; i++)
		if (ev->debug_annotations[i]->name && !strcmp(ev->debug_annotations[i]->name, name))
			return ev->debug_annotations[i];
	return NULL;
}

uint64_t perfetto_args__uint(const perfetto_event *ev, const char *name)
{
	const Perfetto__Protos__DebugAnnotation *a = find(ev, name);

	return a ? a->uint_value : 0;
}

bool perfetto_args__bool(const perfetto_event *ev, const char *name)
{
	const Perfetto__Protos__DebugAnnotation *a = find(ev, name);

	return a && a->has_bool_value && a->bool_value;
}

const char *perfetto_args__str(const perfetto_event *ev, const char *name)
{
	const Perfetto__Protos__DebugAnnotation *a = find(ev, name);

	return a ? a->string_value : NULL;
}

int perfetto_args__values(struct fb_thread *t, const perfetto_event *te)
{
	int err = 0;

	for (size_t i = 0; te && i < te->n_debug_annotations && !err; i++) {
		const Perfetto__Protos__DebugAnnotation *a = te->debug_annotations[i];
		const char *name = a->name;

		if (!name || (strcmp(name, VALUE_RETURN) && strncmp(name, "args.", 5)))
			continue;
		name += strcmp(name, VALUE_RETURN) ? 5 : 0;
		if (a->has_int_value)
			err = frame_builder__value(t, name, VALUE_INT, (uint64_t)a->int_value,
						   NULL);
		else if (a->has_uint_value)
			err = frame_builder__value(t, name, VALUE_UINT, a->uint_value, NULL);
		else if (a->has_bool_value)
			err = frame_builder__value(t, name, VALUE_BOOL, a->bool_value, NULL);
		else if (a->has_pointer_value)
			err = frame_builder__value(t, name, VALUE_POINTER, a->pointer_value, NULL);
		else if (a->string_value)
			err = frame_builder__value(t, name, VALUE_TEXT, 0, a->string_value);
	}
	return err;
}

void perfetto_args__cause(struct fb_thread *t, const perfetto_event *te)
{
	const char *kind = perfetto_args__str(te, PERFETTO_CAUSE_KIND_ARG);
	uint64_t cause = perfetto_args__uint(te, PERFETTO_CAUSE_ARG);

	if (cause && kind && te->n_terminating_flow_ids)
		frame_builder__caused(t, cause, te->terminating_flow_ids[0],
				      frame_cause__parse(kind));
}
