/* probe_plan.c: see probe_plan.h. */
#include <errno.h>

#include "probe_plan.h"
#include "sledtrace.h"

const char *probe_plan__exit_name(enum exit_mode m)
{
	switch (m) {
	case EXIT_SLED:
		return "sled";
	case EXIT_URETPROBE:
		return "uretprobe";
	case EXIT_INFER:
		return "infer";
	default:
		return "auto";
	}
}

/* auto: uretprobes only where no unwinder can walk through the frames
 * they hijack (the unwinder would abort the target). */
static enum exit_mode choose_exits(const struct elf_object *obj, enum exit_mode mode)
{
	if (mode != EXIT_AUTO)
		return mode;
	return elf_object__can_unwind(obj) ? EXIT_SLED : EXIT_URETPROBE;
}

static int queue_sled(struct attacher *a, const struct probe_programs *progs,
		      const char *path, const struct xray_sled *s, uint32_t obj_index,
		      uint32_t fn, enum exit_mode exits, size_t *probes)
{
	int err = 0;

	switch (s->kind) {
	case XRAY_SLED_ENTRY:
		err = attacher__add(a, progs->entry, path, s->file_offset,
				    SLED_COOKIE(SLED_KIND_ENTRY, obj_index, fn), 0);
		if (!err && exits == EXIT_URETPROBE) {
			err = attacher__add(a, progs->ret, path, s->file_offset,
					    SLED_COOKIE(SLED_KIND_RET, obj_index, fn), 1);
			++*probes;
		}
		break;
	case XRAY_SLED_EXIT:
		if (exits != EXIT_SLED)
			return 0;
		err = attacher__add(a, progs->exit, path, s->file_offset,
				    SLED_COOKIE(SLED_KIND_EXIT, obj_index, fn), 0);
		break;
	case XRAY_SLED_TAIL:
		err = attacher__add(a, progs->tail, path, s->file_offset,
				    SLED_COOKIE(SLED_KIND_TAIL, obj_index, fn), 0);
		break;
	default:
		return 0;
	}
	++*probes;
	return err;
}

int probe_plan__queue(struct attacher *a, const struct probe_programs *progs,
		      const struct elf_object *obj, const struct xray_map *map,
		      uint32_t obj_index, enum exit_mode mode, const bool *selected,
		      struct object_plan *out)
{
	const char *path = elf_object__path(obj);
	int err;

	*out = (struct object_plan){ 0 };
	out->exits = choose_exits(obj, mode);
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct xray_function *f = &map->funcs[i];

		if (selected && !selected[f->id])
			continue;
		out->functions++;
		for (uint32_t k = 0; k < f->nsleds; k++) {
			err = queue_sled(a, progs, path, &map->sleds[f->first_sled + k],
					 obj_index, f->id, out->exits, &out->probes);
			if (err)
				return err;
		}
	}
	return 0;
}
