// SPDX-License-Identifier: MIT
/* perfetto_ident.c: see perfetto_ident.h.  Strings are kept once however
 * many sequences intern them; frames and mappings once per sequence (the
 * writer interns them once per sequence and function). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_ident.h"

/* Indexes + 1 into strs and objs, 0 when absent. */
struct pi_frame {
	uint32_t mangled, obj;
	uint64_t addr;
};

struct pi_obj {
	uint32_t path, build_id; /* string index + 1 */
};

struct perfetto_ident {
	char **strs;
	struct u64map str_idx; /* hash -> string index + 1 */
	struct pi_frame *frames;
	struct pi_obj *objs;
	size_t nstrs, nframes, nobjs;
};

struct perfetto_ident *perfetto_ident__new(void)
{
	return calloc(1, sizeof(struct perfetto_ident));
}

void perfetto_ident__free(struct perfetto_ident *pi)
{
	if (!pi)
		return;
	for (size_t i = 0; i < pi->nstrs; i++)
		free(pi->strs[i]);
	free(pi->strs);
	free(pi->frames);
	free(pi->objs);
	u64map__clear(&pi->str_idx);
	free(pi);
}

void perfetto_ident__seq_reset(struct perfetto_ident_seq *s)
{
	u64map__clear(&s->fnames);
	u64map__clear(&s->bids);
	u64map__clear(&s->paths);
	u64map__clear(&s->maps);
	u64map__clear(&s->frames);
}

/* Index + 1 of the string, added on first sight. */
static int str_of(struct perfetto_ident *pi, const ProtobufCBinaryData *b, uint64_t *out)
{
	uint64_t h = 1469598103934665603ULL, key, idx;
	char **v;

	for (size_t i = 0; i < b->len; i++)
		h = (h ^ b->data[i]) * 1099511628211ULL;
	/* a collision probes on; 0 is never a key */
	for (key = h ? h : 1; u64map__get(&pi->str_idx, key, &idx); key = key * 31 + 7 + !key) {
		const char *s = pi->strs[idx - 1];

		if (strlen(s) == b->len && !memcmp(s, b->data, b->len)) {
			*out = idx;
			return 0;
		}
	}
	if (!(v = realloc(pi->strs, (pi->nstrs + 1) * sizeof(*v))))
		return -ENOMEM;
	pi->strs = v;
	if (!(v[pi->nstrs] = strndup((const char *)b->data, b->len)))
		return -ENOMEM;
	*out = ++pi->nstrs;
	return u64map__put(&pi->str_idx, key, *out);
}

/* The first definition of an iid stays (they are never redefined). */
static int intern_strings(struct perfetto_ident *pi, struct u64map *m,
			  Perfetto__Protos__InternedString *const *v, size_t n)
{
	uint64_t idx;
	int err;

	for (size_t i = 0; i < n; i++) {
		if (!v[i]->has_iid || !v[i]->iid || !v[i]->has_str || u64map__find(m, v[i]->iid))
			continue;
		if ((err = str_of(pi, &v[i]->str, &idx)) || (err = u64map__put(m, v[i]->iid, idx)))
			return err;
	}
	return 0;
}

static uint32_t lookup(const struct u64map *m, bool has, uint64_t iid)
{
	uint64_t v = 0;

	return has && iid && u64map__get(m, iid, &v) ? (uint32_t)v : 0;
}

static int intern_mappings(struct perfetto_ident *pi, struct perfetto_ident_seq *s,
			   const Perfetto__Protos__InternedData *d)
{
	struct pi_obj *o;
	int err;

	for (size_t i = 0; i < d->n_mappings; i++) {
		const Perfetto__Protos__Mapping *m = d->mappings[i];

		if (!m->has_iid || !m->iid || u64map__find(&s->maps, m->iid))
			continue;
		if (!(o = realloc(pi->objs, (pi->nobjs + 1) * sizeof(*o))))
			return -ENOMEM;
		pi->objs = o;
		o[pi->nobjs].build_id = lookup(&s->bids, m->has_build_id, m->build_id);
		o[pi->nobjs].path = lookup(&s->paths, m->n_path_string_ids != 0,
					   m->n_path_string_ids ? m->path_string_ids[0] : 0);
		if ((err = u64map__put(&s->maps, m->iid, ++pi->nobjs)))
			return err;
	}
	return 0;
}

int perfetto_ident__intern(struct perfetto_ident *pi, struct perfetto_ident_seq *s,
			   const Perfetto__Protos__InternedData *d)
{
	struct pi_frame *v;
	int err;

	if ((err = intern_strings(pi, &s->fnames, d->function_names, d->n_function_names)) ||
	    (err = intern_strings(pi, &s->bids, d->build_ids, d->n_build_ids)) ||
	    (err = intern_strings(pi, &s->paths, d->mapping_paths, d->n_mapping_paths)) ||
	    (err = intern_mappings(pi, s, d)))
		return err;
	for (size_t i = 0; i < d->n_frames; i++) {
		const Perfetto__Protos__Frame *f = d->frames[i];

		if (!f->has_iid || !f->iid || u64map__find(&s->frames, f->iid))
			continue;
		if (!(v = realloc(pi->frames, (pi->nframes + 1) * sizeof(*v))))
			return -ENOMEM;
		pi->frames = v;
		v[pi->nframes] = (struct pi_frame){
			.mangled = lookup(&s->fnames, f->has_function_name_id, f->function_name_id),
			.obj = lookup(&s->maps, f->has_mapping_id, f->mapping_id),
			.addr = f->has_rel_pc ? f->rel_pc : 0,
		};
		if ((err = u64map__put(&s->frames, f->iid, ++pi->nframes)))
			return err;
	}
	return 0;
}

static const char *str_at(const struct perfetto_ident *pi, uint32_t i)
{
	return i && i <= pi->nstrs ? pi->strs[i - 1] : NULL;
}

bool perfetto_ident__lookup(const struct perfetto_ident *pi, const struct perfetto_ident_seq *s,
			    uint64_t iid, struct trace_function *fn)
{
	uint64_t i;
	const struct pi_frame *f;
	const struct pi_obj *o;

	if (!iid || !u64map__get(&s->frames, iid, &i))
		return false;
	f = &pi->frames[i - 1];
	o = f->obj ? &pi->objs[f->obj - 1] : NULL;
	fn->mangled = str_at(pi, f->mangled);
	fn->object = o ? str_at(pi, o->path) : NULL;
	fn->build_id = o ? str_at(pi, o->build_id) : NULL;
	fn->addr = f->addr;
	return true;
}
