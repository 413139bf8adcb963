// SPDX-License-Identifier: MIT
/* objects.c: see objects.h. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

#include "object/instrumented.h"
#include "object/params.h"
#include "record/hold/objects.h"
#include "util/u64map.h"

struct object_set {
	struct object_set_opts opts;
	struct traced_object *objs;
	size_t n;
	size_t registered, queued; /* objects [0, registered) are known downstream */
	uint32_t next_fid;
	struct u64map names;  /* name hash -> object + 1, 0 once in two objects */
	struct filter *gates; /* --under; NULL: none */
	size_t unprobed;      /* selected, but left out by the budget */
};

/* The --under regexes as one filter: checked on the command line already. */
static int gate_filter(struct object_set *s)
{
	char err[1024];
	int ret = 0;

	if (!s->opts.nunder)
		return 0;
	if (!(s->gates = filter__new()))
		return -ENOMEM;
	for (size_t i = 0; !ret && i < s->opts.nunder; i++)
		ret = filter__add(s->gates, s->opts.under[i], false, err, sizeof(err));
	return ret;
}

int object_set__new(const struct object_set_opts *opts, struct object_set **out)
{
	struct object_set *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->opts = *opts;
	if ((ret = gate_filter(s))) {
		object_set__free(s);
		return ret;
	}
	*out = s;
	return 0;
}

static void object_free(struct traced_object *o)
{
	free(o->path);
	free(o->open_path);
	free(o->selected);
	free(o->gates);
	for (size_t id = 0; o->capture && id <= o->map->nfuncs; id++)
		capture_fn__free(o->capture[id]);
	free(o->capture);
	free(o->capture_flags);
	ns_copy__free(o->copy);
	symbols__free(o->syms);
	xray_map__free(o->map);
	elf_object__free(o->elf);
}

void object_set__free(struct object_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		object_free(&s->objs[i]);
	free(s->objs);
	filter__free(s->gates);
	u64map__clear(&s->names);
	free(s);
}

/* A gate must be probed to open: it is traced whatever -F/-N say. */
static int select_gates(const struct object_set *s, struct traced_object *o)
{
	int ret = select_functions(s->gates, o->syms, o->map, &o->gates, &o->ngates);

	for (size_t i = 0; !ret && i < o->map->nfuncs; i++) {
		uint32_t id = o->map->funcs[i].id;

		o->nselected += o->gates[id] && !o->selected[id];
		o->selected[id] |= o->gates[id];
	}
	return ret;
}

/* --capture: the plan of each selected function a spec matches, its
 * parameters read from the object's DWARF. */
static int plan_captures(struct capture_set *cs, struct traced_object *o)
{
	struct param_reader *pr = param_reader__open(o->elf);
	int err = 0;

	o->capture = calloc(o->map->nfuncs + 1, sizeof(*o->capture));
	o->capture_flags = calloc(o->map->nfuncs + 1, 1);
	if (!pr || !o->capture || !o->capture_flags) {
		param_reader__free(pr);
		return -ENOMEM;
	}
	for (size_t i = 0; !err && i < o->map->nfuncs; i++) {
		const struct xray_function *f = &o->map->funcs[i];
		const struct symbol_info *si = symbols__get(o->syms, f->id);
		struct capture_fn *fn;

		if (!o->selected[f->id])
			continue;
		err = capture_set__plan(cs, si->name, si->mangled[0] ? si->mangled : NULL, pr,
					f->addr, &fn);
		if (err || !fn)
			continue;
		o->capture[f->id] = fn;
		o->capture_flags[f->id] = (uint8_t)((fn->args ? PROBE_CAPTURE_ARGS : 0) |
						    (fn->ret ? PROBE_CAPTURE_RET : 0));
		o->ncaptured++;
	}
	param_reader__free(pr);
	return err;
}

/* The budget's plan takes its functions out of the selection; a gate of
 * --under stays: what it encloses could not be recorded without it. */
static void apply_budget(struct object_set *s, struct traced_object *o)
{
	for (size_t i = 0; i < o->map->nfuncs; i++) {
		uint32_t id = o->map->funcs[i].id;

		if (!o->selected[id] || (o->gates && o->gates[id]) ||
		    !budget__leaves_out(s->opts.budget, o->path, symbols__get(o->syms, id)->name))
			continue;
		o->selected[id] = false;
		o->nselected--;
		s->unprobed++;
	}
}

static int select_in(struct object_set *s, struct traced_object *o, char *err, size_t errlen)
{
	const struct select_args *sel = s->opts.sel;
	struct filter *f = NULL;
	int ret = 0;

	if (sel && sel->n)
		ret = select_args__filter(sel, o->path, elf_object__build_id(o->elf), &f, err,
					  errlen);
	if (!ret)
		ret = select_functions(f, o->syms, o->map, &o->selected, &o->nselected);
	filter__free(f);
	if (!ret && s->gates)
		ret = select_gates(s, o);
	if (!ret && s->opts.budget)
		apply_budget(s, o);
	if (!ret && s->opts.capture)
		ret = plan_captures(s->opts.capture, o);
	return ret;
}

static int open_object(struct object_set *s, struct traced_object *o, char *err, size_t errlen)
{
	struct instrumented_opts io_opts = { .no_xray = s->opts.no_xray,
					     .debug_dir = s->opts.debug_dir,
					     .names = { .mangled = s->opts.mangled } };
	struct instrumented io;
	int ret = instrumented__open(&io, o->open_path, &io_opts, err, errlen);

	o->elf = io.elf;
	o->map = io.map;
	o->syms = io.syms;
	if (!ret)
		ret = select_in(s, o, err, errlen);
	/* Messages name the file as the process knows it, not a /proc link. */
	if (ret && strcmp(o->path, o->open_path)) {
		char *at = strstr(err, o->open_path);

		if (at && strlen(err) - strlen(o->open_path) + strlen(o->path) < errlen) {
			char rest[1024];

			snprintf(rest, sizeof(rest), "%s", at + strlen(o->open_path));
			snprintf(at, errlen - (size_t)(at - err), "%s%s", o->path, rest);
		}
	}
	return ret;
}

static bool wanted(const struct object_set *s, const char *path)
{
	for (size_t i = 0; i < s->opts.nglobs; i++)
		if (!fnmatch(s->opts.globs[i], path, 0))
			return true;
	return !s->opts.nglobs;
}

int object_set__add(struct object_set *s, const char *path, const char *open_path, uint64_t dev,
		    uint64_t ino, char *err, size_t errlen)
{
	struct traced_object *objs, *o;
	int ret;

	if (object_set__find(s, dev, ino, NULL))
		return 1;
	if (!wanted(s, path))
		return -ENODATA;
	/* Found mappings are mostly libraries without sleds: look cheaply
	 * first.  A command given by name gets the full error below. */
	if (!s->opts.no_xray && strcmp(path, open_path) && xray_map__in_file(open_path) != 1)
		return -ENODATA;
	objs = realloc(s->objs, (s->n + 1) * sizeof(*objs));
	if (!objs)
		return -ENOMEM;
	s->objs = objs;
	o = &s->objs[s->n];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	o->open_path = strdup(open_path);
	o->dev = dev;
	o->ino = ino;
	ret = o->path && o->open_path ? open_object(s, o, err, errlen) : -ENOMEM;
	if (ret) {
		object_free(o);
		return ret;
	}
	o->fid_base = s->next_fid;
	s->next_fid += (uint32_t)o->map->nfuncs;
	s->n++;
	return 0;
}

struct traced_object *object_set__find(struct object_set *s, uint64_t dev, uint64_t ino,
				       bool *is_copy)
{
	for (size_t i = 0; i < s->n; i++) {
		struct traced_object *o = &s->objs[i];
		bool copy = o->copy && o->copy_dev == dev && o->copy_ino == ino;

		if (copy || (o->dev == dev && o->ino == ino)) {
			if (is_copy)
				*is_copy = copy;
			return o;
		}
	}
	return NULL;
}

size_t object_set__count(const struct object_set *s)
{
	return s->n;
}

struct traced_object *object_set__get(struct object_set *s, size_t i)
{
	return i < s->n ? &s->objs[i] : NULL;
}

size_t object_set__selected(const struct object_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->objs[i].nselected;
	return n;
}

size_t object_set__unprobed(const struct object_set *s)
{
	return s->unprobed;
}

size_t object_set__gates(const struct object_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->objs[i].ngates;
	return n;
}

size_t object_set__functions(const struct object_set *s)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->objs[i].map->nfuncs;
	return n;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h | 1; /* key 0 is never found in a u64map */
}

/* Notes the names of the objects from `from` on: hash -> object + 1, or 0
 * once seen in two objects.  A hash collision only adds a needless suffix;
 * a name already written unsuffixed stays so, a later object's copy gets
 * the suffix. */
static int note_names(struct object_set *s, size_t from)
{
	for (size_t i = from; i < s->n; i++) {
		struct traced_object *o = &s->objs[i];

		for (uint32_t id = 1; id <= o->map->nfuncs; id++) {
			uint64_t h = name_hash(symbols__get(o->syms, id)->name), v;
			int err = 0;

			if (!u64map__get(&s->names, h, &v))
				err = u64map__put(&s->names, h, i + 1);
			else if (v != i + 1 && v)
				err = u64map__put(&s->names, h, 0);
			if (err)
				return err;
		}
	}
	return 0;
}

/* trace_function.locate: a function's source location, read from DWARF
 * only when the writer first uses the function. */
static int locate_function(void *ctx, uint64_t id, const char **file, uint32_t *line)
{
	const struct symbol_info *si = symbols__locate(ctx, (uint32_t)id);

	if (!si || !si->file)
		return -ENOENT;
	*file = si->file;
	*line = si->line;
	return 0;
}

static int register_object(struct traced_object *o, struct u64map *names, struct frame_builder *fb)
{
	const char *base = strrchr(o->path, '/');
	/* Identity: the object by absolute path, as the process names it. */
	char *abs = realpath(o->path, NULL);
	int err = 0;

	base = base ? base + 1 : o->path;
	for (uint32_t id = 1; !err && id <= o->map->nfuncs; id++) {
		const struct symbol_info *si = symbols__get(o->syms, id);
		struct trace_function fn = {
			.id = o->fid_base + id,
			.name = si->name,
			.mangled = si->mangled,
			.object = abs ? abs : o->path,
			.build_id = elf_object__build_id(o->elf),
			.addr = o->map->funcs[id - 1].addr,
			.locate = locate_function,
			.locate_ctx = o->syms,
			.locate_key = id,
		};
		char *shown = NULL;
		uint64_t v = 1;

		if (u64map__get(names, name_hash(si->name), &v) && !v) {
			if (asprintf(&shown, "%s [%s]", si->name, base) < 0) {
				err = -ENOMEM;
				break;
			}
			fn.name = shown;
		}
		err = frame_builder__function(fb, &fn);
		free(shown);
	}
	free(abs);
	return err;
}

int object_set__register(struct object_set *s, struct collector *col, struct frame_builder *fb)
{
	int err = note_names(s, s->registered);

	for (; !err && s->registered < s->n; s->registered++) {
		struct traced_object *o = &s->objs[s->registered];
		struct collector_object co = {
			.fid_base = o->fid_base,
			.nfuncs = (uint32_t)o->map->nfuncs,
			.capture = (const struct capture_fn *const *)o->capture
		};

		err = collector__add_object(col, &co);
		if (!err)
			err = register_object(o, &s->names, fb);
	}
	return err;
}

/* What the capture probes of o (object index) read, by cookie: in the
 * map before they are attached. */
static int store_specs(const struct traced_object *o, uint32_t index, int fd)
{
	for (uint32_t id = 1; fd >= 0 && o->capture && id <= o->map->nfuncs; id++) {
		const struct capture_fn *f = o->capture[id];
		__u64 key;

		if (!f)
			continue;
		key = SLED_COOKIE(SLED_KIND_ARGS, index, id);
		if (f->args && bpf_map_update_elem(fd, &key, &f->entry_spec, BPF_ANY))
			return -errno;
		key = SLED_COOKIE(SLED_KIND_RETVAL, index, id);
		if (f->ret && bpf_map_update_elem(fd, &key, &f->ret_spec, BPF_ANY))
			return -errno;
	}
	return 0;
}

/* o's probes on its rewritten copy at copy_path, or on the original when
 * NULL, with exits as p has them for that file. */
static int queue_one(struct traced_object *o, uint32_t index, const char *copy_path,
		     const struct exit_policy *p, struct attacher *att,
		     const struct object_probes *probes, struct object_plan *plan)
{
	struct object_exits exits = exit_policy__object(
		p, o->elf, copy_path ? EXIT_COPY_REWRITTEN : EXIT_COPY_ORIGINAL);
	int err = store_specs(o, index, probes->capture_specs_fd);

	struct probe_choice choice = { .selected = o->selected,
				       .gates = o->gates,
				       .capture = o->capture_flags };

	if (err)
		return err;
	return probe_plan__queue(att, &probes->progs, o->elf, copy_path, o->map, index, &exits,
				 &choice, plan);
}

int object_set__queue(struct object_set *s, struct attacher *att,
		      const struct object_probes *probes, const struct exit_policy *exits)
{
	for (; s->queued < s->n; s->queued++) {
		struct traced_object *o = &s->objs[s->queued];
		int err;

		if (!o->nselected)
			continue;
		err = queue_one(o, (uint32_t)s->queued, o->rewritten ? o->probe_path : NULL, exits,
				att, probes, &o->plan);
		if (err)
			return err;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct traced_object *o = &s->objs[i];
		int err;

		if (!o->copy || o->copy_queued || !o->nselected)
			continue;
		err = queue_one(o, (uint32_t)i, ns_copy__path(o->copy), exits, att, probes,
				&o->copy_plan);
		if (err)
			return err;
		o->copy_queued = true;
	}
	return 0;
}
