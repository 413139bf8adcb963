// SPDX-License-Identifier: MIT
/* test_probe_plan.c: which exit each function gets, and which probes an
 * object gets, on the fixtures' real ELF files - no BPF is loaded, the
 * attacher only queues (perf mode, never attached).
 * usage: unit_probe_plan EXCEPTION_FIXTURE CALLTREE_FIXTURE
 *   exception (C++, can unwind): mixed on the original (what auto and
 *     rewrite mean there) gives inferred exits, and uretprobes to its
 *     leaves `handled` and `after` only;
 *   calltree (C, cannot unwind): mixed gives uretprobes everywhere;
 *   a rewritten copy gives exit sleds everywhere. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "object/elf_object.h"
#include "object/xray_map.h"
#include "probes/exit_policy.h"
#include "probes/probe_plan.h"

static const char *exception_path, *calltree_path;

struct obj {
	struct elf_object *elf;
	struct xray_map *map;
};

static void obj_open(struct obj *o, const char *path)
{
	char err[256];

	assert_int_equal(elf_object__open(path, &o->elf, err, sizeof(err)), 0);
	assert_int_equal(xray_map__load(o->elf, &o->map, err, sizeof(err)), 0);
	assert_true(o->map->nfuncs > 0);
}

static void obj_close(struct obj *o)
{
	xray_map__free(o->map);
	elf_object__free(o->elf);
}

static const char *name_of(const struct obj *o, const struct xray_function *f)
{
	const struct elf_symbol *s = elf_object__symbol_at(o->elf, f->addr);

	assert_non_null(s);
	return s->name;
}

static bool is_leaf_name(const char *name)
{
	return !strcmp(name, "handled") || !strcmp(name, "after");
}

/* The policy record resolves for a command with sleds. */
static struct exit_policy policy(enum exit_mode mode, bool nop5_fast)
{
	struct exit_env env = { .command = true, .sleds = true, .nop5_fast = nop5_fast };
	struct exit_policy p;
	char why[256];

	assert_int_equal(exit_policy__resolve(mode, &env, &p, why, sizeof(why)), 0);
	return p;
}

static void test_exception_auto(void **state)
{
	struct exit_policy mixed = policy(EXIT_MIXED, true), rewrite = policy(EXIT_REWRITE, true);
	struct exit_policy sled = policy(EXIT_SLED, true), infer = policy(EXIT_INFER, true);
	struct exit_policy slow_auto = policy(EXIT_AUTO, false);
	struct object_exits obj_exits, copy_exits, e;
	unsigned seen = 0;
	struct obj o;

	(void)state;
	obj_open(&o, exception_path);
	assert_true(elf_object__can_unwind(o.elf));
	obj_exits = exit_policy__object(&mixed, o.elf, EXIT_COPY_ORIGINAL);
	assert_int_equal(obj_exits.returns, RETURNS_INFER);
	assert_true(obj_exits.leaf_uretprobes);
	/* auto without the nop5 optimization, and rewrite on an original */
	e = exit_policy__object(&slow_auto, o.elf, EXIT_COPY_ORIGINAL);
	assert_int_equal(e.returns, RETURNS_INFER);
	assert_true(e.leaf_uretprobes);
	e = exit_policy__object(&rewrite, o.elf, EXIT_COPY_ORIGINAL);
	assert_int_equal(e.returns, RETURNS_INFER);
	copy_exits = exit_policy__object(&rewrite, o.elf, EXIT_COPY_REWRITTEN);
	assert_int_equal(copy_exits.returns, RETURNS_SLED);
	assert_false(copy_exits.leaf_uretprobes);
	for (size_t i = 0; i < o.map->nfuncs; i++) {
		const struct xray_function *f = &o.map->funcs[i];
		const char *name = name_of(&o, f);
		enum exit_returns want = is_leaf_name(name) ? RETURNS_URETPROBE : RETURNS_INFER;
		struct object_exits se = exit_policy__object(&sled, o.elf, EXIT_COPY_ORIGINAL);
		struct object_exits ie = exit_policy__object(&infer, o.elf, EXIT_COPY_ORIGINAL);

		if (!strcmp(name, "handled") || !strcmp(name, "after") ||
		    !strcmp(name, "thrower") || !strcmp(name, "catcher") || !strcmp(name, "main"))
			seen++;
		else
			continue;
		if (probe_plan__function_returns(o.elf, o.map, f, &obj_exits) != want)
			fail_msg("%s: expected %s", name, exit_returns__name(want));
		/* only mixed promotes leaves */
		assert_int_equal(probe_plan__function_returns(o.elf, o.map, f, &copy_exits),
				 RETURNS_SLED);
		assert_int_equal(probe_plan__function_returns(o.elf, o.map, f, &se), RETURNS_SLED);
		assert_int_equal(probe_plan__function_returns(o.elf, o.map, f, &ie), RETURNS_INFER);
	}
	assert_int_equal(seen, 5);
	for (enum exit_mode m = EXIT_SLED; m <= EXIT_INFER; m++) {
		struct exit_policy p = policy(m, true);

		e = exit_policy__object(&p, o.elf, EXIT_COPY_ORIGINAL);
		assert_string_equal(exit_returns__name(e.returns), exit_mode_names[m]);
		assert_false(e.leaf_uretprobes);
	}
	obj_close(&o);
}

static void test_calltree_auto(void **state)
{
	struct exit_policy mixed = policy(EXIT_MIXED, true), rewrite = policy(EXIT_REWRITE, true);
	struct object_exits obj_exits;
	struct obj o;

	(void)state;
	obj_open(&o, calltree_path);
	assert_false(elf_object__can_unwind(o.elf));
	obj_exits = exit_policy__object(&mixed, o.elf, EXIT_COPY_ORIGINAL);
	assert_int_equal(obj_exits.returns, RETURNS_URETPROBE);
	assert_int_equal(exit_policy__object(&rewrite, o.elf, EXIT_COPY_ORIGINAL).returns,
			 RETURNS_URETPROBE);
	assert_int_equal(exit_policy__object(&rewrite, o.elf, EXIT_COPY_REWRITTEN).returns,
			 RETURNS_SLED);
	for (size_t i = 0; i < o.map->nfuncs; i++)
		assert_int_equal(
			probe_plan__function_returns(o.elf, o.map, &o.map->funcs[i], &obj_exits),
			RETURNS_URETPROBE);
	obj_close(&o);
}

/* What queue() must produce, worked out from the map and the rules:
 * entry and tail sleds always, exit sleds where the exit is a sled, and a
 * uretprobe on the entry sled where it is a uretprobe. */
static void expect_plan(const struct obj *o, const struct object_exits *e, const bool *selected,
			struct object_plan *want)
{
	*want = (struct object_plan){ .copy = e->copy, .returns = e->returns };
	for (size_t i = 0; i < o->map->nfuncs; i++) {
		const struct xray_function *f = &o->map->funcs[i];
		bool ret = e->returns == RETURNS_URETPROBE ||
			   (e->leaf_uretprobes && is_leaf_name(name_of(o, f)));
		size_t exits = e->returns == RETURNS_SLED && !ret ? f->nexit : 0;

		if (selected && !selected[f->id])
			continue;
		want->functions++;
		want->ret_functions += ret;
		want->sleds += f->nentry + f->ntail + exits;
		want->probes += f->nentry + f->ntail + exits + (ret ? f->nentry : 0);
	}
}

/* Queues path's probes as record does for a command's executable under
 * mode: on the copy the policy chooses.  With only, just that function is
 * selected, and want_ret says whether it gets a uretprobe. */
static void check_queue(const char *path, enum exit_mode mode, bool nop5_fast, const char *only,
			size_t want_ret)
{
	static char progs_storage[4];
	struct probe_programs progs = { (struct bpf_program *)&progs_storage[0],
					(struct bpf_program *)&progs_storage[1],
					(struct bpf_program *)&progs_storage[2],
					(struct bpf_program *)&progs_storage[3] };
	struct attach_opts ao = { .mode = ATTACH_PERF, .pid = -1 };
	struct exit_policy p = policy(mode, nop5_fast);
	struct object_plan got, want;
	struct object_exits e;
	struct attacher *a;
	bool *selected = NULL;
	struct obj o;

	obj_open(&o, path);
	e = exit_policy__object(&p, o.elf, p.copy);
	if (only) {
		selected = calloc(o.map->nfuncs + 1, sizeof(*selected));
		assert_non_null(selected);
		for (size_t i = 0; i < o.map->nfuncs; i++)
			selected[o.map->funcs[i].id] = !strcmp(name_of(&o, &o.map->funcs[i]), only);
	}
	assert_int_equal(attacher__new(&ao, &a), 0);
	struct probe_choice choice = { .selected = selected };

	assert_int_equal(probe_plan__queue(a, &progs, o.elf, NULL, o.map, 0, &e, &choice, &got), 0);
	expect_plan(&o, &e, selected, &want);
	assert_int_equal(got.copy, want.copy);
	assert_int_equal(got.returns, want.returns);
	assert_int_equal(got.functions, want.functions);
	assert_int_equal(got.ret_functions, want.ret_functions);
	assert_int_equal(got.sleds, want.sleds);
	assert_int_equal(got.probes, want.probes);
	assert_int_equal(attacher__probe_count(a), want.probes);
	if (only) {
		assert_int_equal(got.functions, 1);
		assert_int_equal(got.ret_functions, want_ret);
	}
	attacher__free(a);
	free(selected);
	obj_close(&o);
}

static void test_queue(void **state)
{
	(void)state;
	for (enum exit_mode m = EXIT_AUTO; m <= EXIT_MIXED; m++) {
		for (int fast = 0; fast < 2; fast++) {
			check_queue(exception_path, m, fast, NULL, 0);
			check_queue(calltree_path, m, fast, NULL, 0);
		}
	}
	check_queue(exception_path, EXIT_AUTO, false, "after", 1);
	check_queue(exception_path, EXIT_AUTO, true, "after", 0);
	check_queue(exception_path, EXIT_AUTO, false, "thrower", 0);
	check_queue(exception_path, EXIT_MIXED, true, "after", 1);
	check_queue(exception_path, EXIT_REWRITE, false, "thrower", 0);
	check_queue(exception_path, EXIT_REWRITE, false, "after", 0);
	check_queue(exception_path, EXIT_URETPROBE, true, "thrower", 1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exception_auto),
		cmocka_unit_test(test_calltree_auto),
		cmocka_unit_test(test_queue),
	};

	if (argc != 3) {
		fprintf(stderr, "usage: %s EXCEPTION_FIXTURE CALLTREE_FIXTURE\n", argv[0]);
		return 2;
	}
	exception_path = argv[1];
	calltree_path = argv[2];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
