// SPDX-License-Identifier: MIT
/* test_probe_plan.c: which exit each function gets, and which probes an
 * object gets, on the fixtures' real ELF files - no BPF is loaded, the
 * attacher only queues (perf mode, never attached).
 * usage: unit_probe_plan EXCEPTION_FIXTURE CALLTREE_FIXTURE
 *   exception (C++, can unwind): mixed (and auto, which means mixed to the
 *     plan: record decides on rewriting) gives inferred exits, and
 *     uretprobes to its leaves `handled` and `after` only;
 *   calltree (C, cannot unwind): mixed gives uretprobes everywhere;
 *   rewrite gives exit sleds everywhere (probed on the copy). */
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

static void test_exception_auto(void **state)
{
	struct obj o;
	enum exit_mode obj_exits;
	unsigned seen = 0;

	(void)state;
	obj_open(&o, exception_path);
	assert_true(elf_object__can_unwind(o.elf));
	obj_exits = probe_plan__object_exits(o.elf, o.map, EXIT_AUTO);
	assert_int_equal(obj_exits, EXIT_INFER);
	assert_int_equal(probe_plan__object_exits(o.elf, o.map, EXIT_MIXED), EXIT_INFER);
	assert_int_equal(probe_plan__object_exits(o.elf, o.map, EXIT_REWRITE), EXIT_SLED);
	for (size_t i = 0; i < o.map->nfuncs; i++) {
		const struct xray_function *f = &o.map->funcs[i];
		const char *name = name_of(&o, f);
		enum exit_mode want = is_leaf_name(name) ? EXIT_URETPROBE : EXIT_INFER;

		if (!strcmp(name, "handled") || !strcmp(name, "after") ||
		    !strcmp(name, "thrower") || !strcmp(name, "catcher") || !strcmp(name, "main"))
			seen++;
		else
			continue;
		if (probe_plan__function_exits(o.elf, o.map, f, EXIT_AUTO, obj_exits) != want ||
		    probe_plan__function_exits(o.elf, o.map, f, EXIT_MIXED, obj_exits) != want)
			fail_msg("%s: expected %s", name, probe_plan__exit_name(want));
		/* only auto and mixed promote leaves */
		assert_int_equal(
			probe_plan__function_exits(o.elf, o.map, f, EXIT_REWRITE, EXIT_SLED),
			EXIT_SLED);
		assert_int_equal(probe_plan__function_exits(o.elf, o.map, f, EXIT_SLED, EXIT_SLED),
				 EXIT_SLED);
		assert_int_equal(
			probe_plan__function_exits(o.elf, o.map, f, EXIT_INFER, EXIT_INFER),
			EXIT_INFER);
	}
	assert_int_equal(seen, 5);
	for (enum exit_mode m = EXIT_SLED; m <= EXIT_INFER; m++)
		assert_int_equal(probe_plan__object_exits(o.elf, o.map, m), m);
	obj_close(&o);
}

static void test_calltree_auto(void **state)
{
	struct obj o;
	enum exit_mode obj_exits;

	(void)state;
	obj_open(&o, calltree_path);
	assert_false(elf_object__can_unwind(o.elf));
	obj_exits = probe_plan__object_exits(o.elf, o.map, EXIT_AUTO);
	assert_int_equal(obj_exits, EXIT_URETPROBE);
	assert_int_equal(probe_plan__object_exits(o.elf, o.map, EXIT_MIXED), EXIT_URETPROBE);
	assert_int_equal(probe_plan__object_exits(o.elf, o.map, EXIT_REWRITE), EXIT_SLED);
	for (size_t i = 0; i < o.map->nfuncs; i++)
		assert_int_equal(probe_plan__function_exits(o.elf, o.map, &o.map->funcs[i],
							    EXIT_AUTO, obj_exits),
				 EXIT_URETPROBE);
	obj_close(&o);
}

/* What queue() must produce, worked out from the map and the rules:
 * entry and tail sleds always, exit sleds where the exit is a sled, and a
 * uretprobe on the entry sled where it is a uretprobe. */
static void expect_plan(const struct obj *o, enum exit_mode mode, const bool *selected,
			struct object_plan *want)
{
	*want = (struct object_plan){ .exits = probe_plan__object_exits(o->elf, o->map, mode) };
	for (size_t i = 0; i < o->map->nfuncs; i++) {
		const struct xray_function *f = &o->map->funcs[i];
		bool ret = mode == EXIT_URETPROBE || want->exits == EXIT_URETPROBE ||
			   ((mode == EXIT_AUTO || mode == EXIT_MIXED) &&
			    is_leaf_name(name_of(o, f)));

		if (selected && !selected[f->id])
			continue;
		want->functions++;
		want->ret_functions += ret;
		want->sleds += f->nentry + f->ntail +
			       (want->exits == EXIT_SLED && !ret ? f->nexit : 0);
		want->probes += f->nentry + f->ntail +
				(want->exits == EXIT_SLED && !ret ? f->nexit : 0) +
				(ret ? f->nentry : 0);
	}
}

static void check_queue(const char *path, enum exit_mode mode, const char *only)
{
	static char progs_storage[4];
	struct probe_programs progs = { (struct bpf_program *)&progs_storage[0],
					(struct bpf_program *)&progs_storage[1],
					(struct bpf_program *)&progs_storage[2],
					(struct bpf_program *)&progs_storage[3] };
	struct attach_opts ao = { .mode = ATTACH_PERF, .pid = -1 };
	struct object_plan got, want;
	struct attacher *a;
	bool *selected = NULL;
	struct obj o;

	obj_open(&o, path);
	if (only) {
		selected = calloc(o.map->nfuncs + 1, sizeof(*selected));
		assert_non_null(selected);
		for (size_t i = 0; i < o.map->nfuncs; i++)
			selected[o.map->funcs[i].id] = !strcmp(name_of(&o, &o.map->funcs[i]), only);
	}
	assert_int_equal(attacher__new(&ao, &a), 0);
	assert_int_equal(probe_plan__queue(a, &progs, o.elf, o.map, 0, mode, selected, &got), 0);
	expect_plan(&o, mode, selected, &want);
	assert_int_equal(got.exits, want.exits);
	assert_int_equal(got.functions, want.functions);
	assert_int_equal(got.ret_functions, want.ret_functions);
	assert_int_equal(got.sleds, want.sleds);
	assert_int_equal(got.probes, want.probes);
	assert_int_equal(attacher__probe_count(a), want.probes);
	if (only) {
		assert_int_equal(got.functions, 1);
		assert_int_equal(got.ret_functions, (is_leaf_name(only) && mode != EXIT_REWRITE) ||
							    mode == EXIT_URETPROBE);
	}
	attacher__free(a);
	free(selected);
	obj_close(&o);
}

static void test_queue(void **state)
{
	(void)state;
	for (enum exit_mode m = EXIT_AUTO; m <= EXIT_MIXED; m++) {
		check_queue(exception_path, m, NULL);
		check_queue(calltree_path, m, NULL);
	}
	check_queue(exception_path, EXIT_AUTO, "after");
	check_queue(exception_path, EXIT_AUTO, "thrower");
	check_queue(exception_path, EXIT_MIXED, "after");
	check_queue(exception_path, EXIT_REWRITE, "thrower");
	check_queue(exception_path, EXIT_URETPROBE, "thrower");
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
