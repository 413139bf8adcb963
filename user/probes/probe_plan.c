// SPDX-License-Identifier: MIT
/* probe_plan.c: see probe_plan.h. */
#include <errno.h>
#include <stdio.h>

#include "probes/probe_plan.h"
#include "sledtrace.h"
#include "arch/arch.h"

#define MAX_LEAF_BYTES 4096 /* larger functions are rarely leaves */
#define MAX_LEAF_SLEDS 64

/* Decodes f's body (its symbol gives the extent); every sled must start an
 * instruction, which catches a decoder that lost its way. */
static bool function_is_leaf(const struct elf_object *obj, const struct xray_map *map,
			     const struct xray_function *f)
{
	const struct elf_symbol *sym = elf_object__symbol_at(obj, f->addr);
	uint64_t sleds[MAX_LEAF_SLEDS];
	uint8_t code[MAX_LEAF_BYTES];

	if (!sym || sym->addr != f->addr || !sym->size || sym->size > sizeof(code) ||
	    f->nsleds > MAX_LEAF_SLEDS || elf_object__read_vaddr(obj, f->addr, code, sym->size))
		return false;
	for (uint32_t i = 0; i < f->nsleds; i++)
		sleds[i] = map->sleds[f->first_sled + i].addr;
	return arch_is_leaf(code, sym->size, f->addr, sleds, f->nsleds);
}

enum exit_returns probe_plan__function_returns(const struct elf_object *obj,
					       const struct xray_map *map,
					       const struct xray_function *f,
					       const struct object_exits *exits)
{
	if (exits->leaf_uretprobes && function_is_leaf(obj, map, f))
		return RETURNS_URETPROBE;
	return exits->returns;
}

/* The program and cookie kind of a sled's probe: the capture ones when
 * the function's values are taken there. */
static struct bpf_program *pick(struct bpf_program *plain, struct bpf_program *cap, bool take,
				unsigned plain_kind, unsigned cap_kind, unsigned *kind)
{
	*kind = take ? cap_kind : plain_kind;
	return take ? cap : plain;
}

/* flags: or'ed into every cookie of the function (SLED_COOKIE_GATE for a
 * gate function's probes). */
static int queue_sled(struct attacher *a, const struct probe_programs *progs, const char *path,
		      const struct xray_sled *s, uint32_t obj_index, uint32_t fn, uint64_t flags,
		      enum exit_returns returns, uint8_t cap, struct object_plan *out)
{
	bool args = cap & PROBE_CAPTURE_ARGS, ret = cap & PROBE_CAPTURE_RET;
	struct bpf_program *prog;
	unsigned kind;
	int err = 0;

	switch (s->kind) {
	case XRAY_SLED_ENTRY:
		prog = pick(progs->entry, progs->cap_entry, args, SLED_KIND_ENTRY, SLED_KIND_ARGS,
			    &kind);
		err = attacher__add(a, prog, path, s->file_offset,
				    SLED_COOKIE(kind, obj_index, fn) | flags, 0);
		if (!err && returns == RETURNS_URETPROBE) {
			prog = pick(progs->ret, progs->cap_ret, ret, SLED_KIND_RET,
				    SLED_KIND_RETVAL, &kind);
			err = attacher__add(a, prog, path, s->file_offset,
					    SLED_COOKIE(kind, obj_index, fn) | flags, 1);
			out->probes++;
		}
		break;
	case XRAY_SLED_EXIT:
		if (returns != RETURNS_SLED)
			return 0;
		prog = pick(progs->exit, progs->cap_exit, ret, SLED_KIND_EXIT, SLED_KIND_RETVAL,
			    &kind);
		err = attacher__add(a, prog, path, s->file_offset,
				    SLED_COOKIE(kind, obj_index, fn) | flags, 0);
		break;
	case XRAY_SLED_TAIL:
		/* its uretprobe will report a chained return for the tail call */
		if (returns == RETURNS_URETPROBE)
			flags |= SLED_COOKIE_RETPROBED;
		err = attacher__add(a, progs->tail, path, s->file_offset,
				    SLED_COOKIE(SLED_KIND_TAIL, obj_index, fn) | flags, 0);
		break;
	default:
		return 0;
	}
	out->sleds++;
	out->probes++;
	return err;
}

int probe_plan__queue(struct attacher *a, const struct probe_programs *progs,
		      const struct elf_object *obj, const char *path, const struct xray_map *map,
		      uint32_t obj_index, const struct object_exits *exits,
		      const struct probe_choice *choice, struct object_plan *out)
{
	const bool *selected = choice ? choice->selected : NULL;
	const bool *gates = choice ? choice->gates : NULL;
	const uint8_t *capture = choice ? choice->capture : NULL;

	*out = (struct object_plan){ .copy = exits->copy, .returns = exits->returns };
	if (!path)
		path = elf_object__path(obj);
	for (size_t i = 0; i < map->nfuncs; i++) {
		const struct xray_function *f = &map->funcs[i];
		uint8_t cap = capture ? capture[f->id] : 0;
		bool gate = gates && gates[f->id];
		enum exit_returns returns;
		int err;

		if (selected && !selected[f->id])
			continue;
		returns = probe_plan__function_returns(obj, map, f, exits);
		/* A gate closes when it returns: a return that is only inferred
		 * would leave it open while an unprobed caller at its slot calls
		 * on.  Its exit sleds are probed (exact and unwind-safe). */
		if (gate && returns == RETURNS_INFER)
			returns = RETURNS_SLED;
		out->functions++;
		out->ret_functions += returns == RETURNS_URETPROBE;
		out->captured += cap != 0;
		for (uint32_t k = 0; k < f->nsleds; k++) {
			err = queue_sled(a, progs, path, &map->sleds[f->first_sled + k], obj_index,
					 f->id, gate ? SLED_COOKIE_GATE : 0, returns, cap, out);
			if (err)
				return err;
		}
	}
	return 0;
}

const char *probe_plan__describe(const struct object_plan *p, char *buf, size_t len)
{
	bool mixed = p->returns != RETURNS_URETPROBE && p->ret_functions;

	if (p->copy == EXIT_COPY_REWRITTEN)
		snprintf(buf, len, "rewritten sleds");
	else if (mixed && p->ret_functions == p->functions)
		snprintf(buf, len, "uretprobe, all leaf functions");
	else if (mixed)
		snprintf(buf, len, "%s, uretprobe for %zu leaf function%s",
			 exit_returns__name(p->returns), p->ret_functions,
			 p->ret_functions == 1 ? "" : "s");
	else
		snprintf(buf, len, "%s", exit_returns__name(p->returns));
	return buf;
}
