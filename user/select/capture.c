// SPDX-License-Identifier: MIT
/* capture.c: see capture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "select/capture.h"
#include "select/filter.h"

#define MAX_ITEMS 8

struct spec_item {
	bool ret;
	uint8_t reg;
	bool has_fmt;
	enum param_type type;
	uint8_t size;
};

struct capture_spec {
	struct filter *f;
	bool automatic; /* REGEX alone */
	struct spec_item items[MAX_ITEMS];
	size_t n;
	/* a --flow side: its role, the spec it came from, what it matched */
	int8_t flow_send, flow_recv;
	bool by_stack;
	const char *flow;
	size_t matched;
	char *bad; /* a function whose DWARF has no integer argument there */
};

struct capture_set {
	struct capture_spec *specs;
	size_t n;
};

/* FMT after '/': the letter and an optional width in bits. */
static int parse_fmt(const char *s, struct spec_item *it)
{
	char *end;
	long bits = 64;

	it->has_fmt = true;
	switch (s[0]) {
	case 'd':
		it->type = PARAM_INT;
		break;
	case 'u':
		it->type = PARAM_UINT;
		break;
	case 'x':
		it->type = PARAM_POINTER;
		break;
	case 'b':
		it->type = PARAM_BOOL;
		break;
	case 's':
		it->type = PARAM_CSTRING;
		break;
	case 'S':
		it->type = PARAM_STR;
		break;
	default:
		return -EINVAL;
	}
	if (s[1]) {
		if (!strchr("dux", s[0]))
			return -EINVAL;
		bits = strtol(s + 1, &end, 10);
		if (*end || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
			return -EINVAL;
	}
	it->size = (uint8_t)(it->type == PARAM_BOOL ? 1 : bits / 8);
	return 0;
}

static int parse_item(char *s, struct spec_item *it)
{
	char *slash = strchr(s, '/');

	*it = (struct spec_item){ .size = 8 };
	if (slash)
		*slash = 0;
	if (!strcmp(s, "ret"))
		it->ret = true;
	else if (s[0] >= '1' && s[0] < '1' + SLED_CAP_NREG && !s[1])
		it->reg = (uint8_t)(s[0] - '1');
	else
		return -EINVAL;
	if (slash && parse_fmt(slash + 1, it))
		return -EINVAL;
	if (it->type == PARAM_STR && (it->ret || it->reg == SLED_CAP_NREG - 1))
		return -EINVAL; /* its length would be in no register we read */
	return 0;
}

static int parse_items(const char *list, struct capture_spec *cs)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save))
		err = cs->n == MAX_ITEMS ? -EINVAL : parse_item(tok, &cs->items[cs->n++]);
	if (!err && !cs->n)
		err = -EINVAL;
	free(copy);
	return err;
}

/* The last ':' not next to another ':', or NULL. */
static const char *split_at(const char *spec)
{
	for (const char *p = spec + strlen(spec); p-- > spec;)
		if (*p == ':' && (p == spec || p[-1] != ':') && p[1] != ':')
			return p;
	return NULL;
}

static int parse_spec(const char *spec, struct capture_spec *cs, char *err, size_t errlen)
{
	const char *colon = split_at(spec);
	size_t relen = colon ? (size_t)(colon - spec) : strlen(spec);
	char *re = strndup(spec, relen), msg[512];
	int ret;

	if (!re || !(cs->f = filter__new())) {
		free(re);
		return -ENOMEM;
	}
	cs->automatic = !colon;
	ret = relen ? filter__add(cs->f, re, false, msg, sizeof(msg)) : -EINVAL;
	free(re);
	if (ret == -EINVAL && relen)
		snprintf(err, errlen, "--capture '%s': %s", spec, msg);
	else if (ret == -EINVAL)
		snprintf(err, errlen, "--capture '%s': no function pattern before ':'", spec);
	if (ret || !colon)
		return ret;
	ret = parse_items(colon + 1, cs);
	if (ret == -EINVAL)
		snprintf(err, errlen,
			 "--capture '%s': bad item list '%s' (items: 1..%d or ret, each with an "
			 "optional /d /u /x /b /s /S, d/u/x with 8, 16, 32 or 64 bits; at most %d)",
			 spec, colon + 1, SLED_CAP_NREG, MAX_ITEMS);
	return ret;
}

/* rayon's jobs live on the stack of the frame that made them (join's
 * second half, an injected job), and every job runs through its
 * Job::execute(this), whose `this` is the job: stolen or injected, the
 * pushing frame is the owner of that stack memory (rayon 1.6, verified on
 * a build with sleds in every crate; push itself is inlined away). */
static const char *const rayon_flows[] = { "stack=as rayon_core::job::Job>::execute$:1", NULL };

const char *const *capture_known_flows(const char *name)
{
	return !strcmp(name, "rayon") ? rayon_flows : NULL;
}

/* SEND:N=RECV:M: the '=' right after the sending side's ":N". */
static const char *flow_split(const char *flow)
{
	for (const char *p = strchr(flow, '='); p; p = strchr(p + 1, '='))
		if (p - flow >= 2 && p[-1] >= '1' && p[-1] <= '9' && p[-2] == ':')
			return p;
	return NULL;
}

/* One side of a flow, "REGEX:N": a spec of one raw item, register N. */
static int parse_side(const char *flow, const char *side, bool send, struct capture_spec *cs,
		      char *err, size_t errlen)
{
	char spec[4096];
	const char *colon = split_at(side);
	int ret;

	snprintf(spec, sizeof(spec), "%s/x", side);
	if (!colon || colon[1] < '1' || colon[1] > '0' + SLED_CAP_NREG || colon[2]) {
		snprintf(err, errlen,
			 "--flow '%s': '%s' must be FUNCTION_REGEX:N, N an argument 1..%d", flow,
			 side, SLED_CAP_NREG);
		return -EINVAL;
	}
	if ((ret = parse_spec(spec, cs, err, errlen)))
		return ret;
	cs->flow = flow;
	cs->flow_send = send ? (int8_t)(colon[1] - '1') : -1;
	cs->flow_recv = send ? -1 : (int8_t)(colon[1] - '1');
	return 0;
}

static int parse_flow(const char *flow, struct capture_spec *two, char *err, size_t errlen)
{
	const char *eq = flow_split(flow);
	char *send;
	int ret;

	/* "stack=RECV:M": no sending side, two[0] stays empty */
	if (!strncmp(flow, "stack=", 6)) {
		ret = parse_side(flow, flow + 6, false, &two[1], err, errlen);
		two[1].by_stack = true;
		return ret;
	}
	if (!eq) {
		snprintf(err, errlen, "--flow '%s': not SEND_REGEX:N=RECV_REGEX:M", flow);
		return -EINVAL;
	}
	if (!(send = strndup(flow, (size_t)(eq - flow))))
		return -ENOMEM;
	ret = parse_side(flow, send, true, &two[0], err, errlen);
	free(send);
	return ret ? ret : parse_side(flow, eq + 1, false, &two[1], err, errlen);
}

int capture_set__new(const char *const *specs, size_t n, const char *const *flows, size_t nflows,
		     struct capture_set **out, char *err, size_t errlen)
{
	struct capture_set *cs = calloc(1, sizeof(*cs));
	size_t all = 2 * nflows + n;
	int ret = 0;

	if (!cs || !(cs->specs = calloc(all ? all : 1, sizeof(*cs->specs)))) {
		free(cs);
		return -ENOMEM;
	}
	for (size_t i = 0; !ret && i < nflows; i++)
		ret = parse_flow(flows[i], &cs->specs[2 * i], err, errlen);
	for (size_t i = 0; !ret && i < n; i++) {
		ret = parse_spec(specs[i], &cs->specs[2 * nflows + i], err, errlen);
		cs->specs[2 * nflows + i].flow_send = cs->specs[2 * nflows + i].flow_recv = -1;
	}
	cs->n = all; /* on failure too: whatever parse_* made is freed */
	if (ret) {
		capture_set__free(cs);
		return ret;
	}
	*out = cs;
	return 0;
}

void capture_set__free(struct capture_set *cs)
{
	if (!cs)
		return;
	for (size_t i = 0; i < cs->n; i++) {
		filter__free(cs->specs[i].f);
		free(cs->specs[i].bad);
	}
	free(cs->specs);
	free(cs);
}

void capture_fn__free(struct capture_fn *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		for (size_t e = 0; e < f->items[i].nenums; e++)
			free(f->items[i].enums[e].name);
		free(f->items[i].enums);
		free(f->items[i].name);
	}
	free(f->items);
	free(f);
}

/* Adds an item showing p (a parameter DWARF placed) or, p NULL, the raw
 * register reg named name. */
static int add_item(struct capture_fn *f, const char *name, bool ret, uint8_t reg,
		    enum param_type type, uint8_t size, const struct param *p)
{
	struct capture_item *v = realloc(f->items, (f->n + 1) * sizeof(*v)), *it;
	uint8_t read = type == PARAM_CSTRING			  ? SLED_READ_STR
		       : type == PARAM_STR || type == PARAM_BYTES ? SLED_READ_BYTES
								  : SLED_READ_NONE;
	struct sled_capture_spec *spec = ret ? &f->ret_spec : &f->entry_spec;

	if (!v)
		return -ENOMEM;
	f->items = v;
	it = &v[f->n];
	*it = (struct capture_item){ .ret = ret, .reg = reg, .type = type, .size = size };
	if (!(it->name = strdup(name)))
		return -ENOMEM;
	f->n++;
	it->enum_unsigned = p && p->enum_unsigned;
	if (type == PARAM_ENUM && p && p->nenums) {
		if (!(it->enums = calloc(p->nenums, sizeof(*it->enums))))
			return -ENOMEM;
		for (; it->nenums < p->nenums; it->nenums++)
			if (!(it->enums[it->nenums].name = strdup(p->enums[it->nenums].name)))
				return -ENOMEM;
			else
				it->enums[it->nenums].value = p->enums[it->nenums].value;
	}
	if (read && !spec->read[reg]) {
		spec->read[reg] = read;
		spec->any++;
	}
	*(ret ? &f->ret : &f->args) = true;
	return 0;
}

static const struct param *param_in(const struct params *ps, uint8_t reg)
{
	for (size_t i = 0; i < ps->nargs; i++)
		if (ps->args[i].reg == (int8_t)reg)
			return &ps->args[i];
	return NULL;
}

static int add_auto(struct capture_fn *f, const struct params *ps)
{
	char name[16];
	int err = 0;

	if (!ps->found) {
		for (uint8_t r = 0; r < SLED_CAP_NREG && !err; r++) {
			snprintf(name, sizeof(name), "arg%u", r + 1);
			err = add_item(f, name, false, r, PARAM_POINTER, 8, NULL);
		}
		return err ? err : add_item(f, "return", true, 0, PARAM_POINTER, 8, NULL);
	}
	for (size_t i = 0; i < ps->nargs && !err; i++)
		if (ps->args[i].reg >= 0)
			err = add_item(f, ps->args[i].name, false, (uint8_t)ps->args[i].reg,
				       ps->args[i].type, ps->args[i].size, &ps->args[i]);
	if (!err && ps->ret.reg >= 0)
		err = add_item(f, "return", true, 0, ps->ret.type, ps->ret.size, &ps->ret);
	return err;
}

static int add_listed(struct capture_fn *f, const struct capture_spec *cs, const struct params *ps)
{
	int err = 0;

	for (size_t i = 0; i < cs->n && !err; i++) {
		const struct spec_item *it = &cs->items[i];
		const struct param *p = !ps->found ? NULL
					: it->ret  ? (ps->ret.reg >= 0 ? &ps->ret : NULL)
						   : param_in(ps, it->reg);
		char name[16];

		snprintf(name, sizeof(name), "arg%u", it->reg + 1);
		if (it->ret)
			snprintf(name, sizeof(name), "return");
		if (it->has_fmt || !p)
			err = add_item(f, p ? p->name : name, it->ret, it->reg,
				       it->has_fmt ? it->type : PARAM_POINTER, it->size, NULL);
		else
			err = add_item(f, p->name, it->ret, it->reg, p->type, p->size, p);
	}
	return err;
}

int capture_set__check_flows(const struct capture_set *cs, char *err, size_t errlen)
{
	for (size_t i = 0; i < cs->n; i++) {
		const struct capture_spec *s = &cs->specs[i];
		bool send = s->flow_send >= 0;

		if (!s->flow || !s->f)
			continue;
		if (s->bad) {
			snprintf(err, errlen,
				 "--flow '%s': %s has no integer argument %d (its DWARF says so)",
				 s->flow, s->bad, (send ? s->flow_send : s->flow_recv) + 1);
			return -EINVAL;
		}
		if (!s->matched) {
			snprintf(err, errlen, "--flow '%s': no traced function matches its %s side",
				 s->flow, send ? "sending" : "receiving");
			return -EINVAL;
		}
	}
	return 0;
}

/* A flow's register must hold an integer argument (a pointer, an id): a
 * float or an aggregate in memory cannot be compared. */
static void check_flow_arg(struct capture_spec *s, const char *name, const struct params *ps)
{
	uint8_t reg = (uint8_t)(s->flow_send >= 0 ? s->flow_send : s->flow_recv);

	s->matched++;
	/* an aggregate by value (Rust's 16-byte pairs) may fill registers the
	 * reader does not place: after one, nothing can be said */
	for (size_t i = 0; ps->found && i < ps->nargs; i++)
		if (ps->args[i].reg < 0 && ps->args[i].why &&
		    strcmp(ps->args[i].why, "floating-point"))
			return;
	if (ps->found && !param_in(ps, reg) && !s->bad)
		s->bad = strdup(name);
}

int capture_set__plan(struct capture_set *cs, const char *name, const char *mangled,
		      struct param_reader *pr, uint64_t addr, struct capture_fn **out)
{
	struct param_abi abi = arch_param_abi();
	struct params ps = { 0 };
	struct capture_fn *f;
	int err;

	*out = NULL;
	for (size_t i = 0; i < cs->n; i++) {
		if (!cs->specs[i].f || !filter__match(cs->specs[i].f, name, mangled))
			continue;
		if (!(f = calloc(1, sizeof(*f))))
			return -ENOMEM;
		err = pr ? param_reader__read(pr, addr, &abi, &ps) : 0;
		if (!err && cs->specs[i].flow)
			check_flow_arg(&cs->specs[i], name, &ps);
		f->flow_send = cs->specs[i].flow_send;
		f->flow_recv = cs->specs[i].flow_recv;
		f->flow_by_stack = cs->specs[i].by_stack;
		if (!err)
			err = cs->specs[i].automatic ? add_auto(f, &ps)
						     : add_listed(f, &cs->specs[i], &ps);
		params__free(&ps);
		if (err || !f->n) {
			capture_fn__free(f);
			return err;
		}
		*out = f;
		return 0;
	}
	return 0;
}
