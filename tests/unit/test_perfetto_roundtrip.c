// SPDX-License-Identifier: MIT
/* test_perfetto_roundtrip.c: the Perfetto writer and reader against each
 * other.  The synthetic recording (perfetto_recording.h) goes through a
 * frame_builder into the writer; the file is read back into a counting
 * sink and compared with the same stream counted directly (with the
 * writer's depth cap applied), so every count, timestamp, name, identity
 * (object, build-id, mangled name, address), stat and elided record must
 * survive.  Written through a gzip stream (the writer's other sink), the
 * file must be gzip and read back the same. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/perfetto/perfetto_writer.h"
#include "model/frames.h"
#include "perfetto_recording.h"

static void compare(const struct counts *want, const struct counts *got)
{
	uint64_t capped = 0;

	for (uint32_t i = 1; i <= NFUNCS; i++) {
		uint32_t j = id_by_name(got, want->name[i]);

		capped += want->el_calls[i];
		if (!want->calls[i] && !want->el_calls[i])
			continue;
		assert_true(j > 0);
		assert_int_equal(got->calls[j], want->calls[i]);
		assert_int_equal(got->total[j], want->total[i]);
		assert_int_equal(got->begin_sum[j], want->begin_sum[i]);
		assert_int_equal(got->el_calls[j], want->el_calls[i]);
		assert_int_equal(got->el_total[j], want->el_total[i]);
		assert_int_equal(got->line[j], want->line[i]);
		assert_int_equal(got->addr[j], want->addr[i]);
		for (int k = 0; k < 3; k++) {
			const char *w = k == 0	 ? want->mangled[i]
					: k == 1 ? want->object[i]
						 : want->build_id[i];
			const char *g = k == 0	 ? got->mangled[j]
					: k == 1 ? got->object[j]
						 : got->build_id[j];

			if (w)
				assert_string_equal(g, w);
			else
				assert_null(g);
		}
		if (want->file[i])
			assert_string_equal(got->file[j], want->file[i]);
		else
			assert_null(got->file[j]);
	}
	assert_int_equal(got->enters, want->enters);
	assert_int_equal(got->leaves, want->leaves);
	assert_int_equal(got->inferred, want->inferred);
	assert_int_equal(got->max_depth, PERFETTO_MAX_DEPTH);
	assert_string_equal(got->thread_names, want->thread_names);
	assert_int_equal(got->nstats, 1);
	assert_int_equal(got->nfinish, 1);
	for (size_t k = 0; k < perfetto_stat_nfields; k++) {
		size_t off = perfetto_stat_fields[k].offset;
		uint64_t w = *(const uint64_t *)((const char *)&want->st + off);
		uint64_t g = *(const uint64_t *)((const char *)&got->st + off);

		if (off == offsetof(struct trace_stats, depth_capped))
			w += capped;
		assert_int_equal(g, w);
	}
}

static void roundtrip(const struct perfetto_writer_opts *o, bool gz)
{
	char path[] = "/tmp/sledtrace-rt-XXXXXX";
	struct counts *want = calloc(1, sizeof(*want)), *got = calloc(1, sizeof(*got));
	struct frame_sink ref = { &counting_ops, want };
	int fd = mkstemp(path);

	assert_true(fd >= 0 && want && got);
	close(fd);
	want->cap = PERFETTO_MAX_DEPTH;
	generate(&ref);
	write_trace(path, o, gz);
	read_into(path, got);
	compare(want, got);
	/* the numbers the generator implies, not just agreement */
	assert_int_equal(want->el_calls[2], DEEP - PERFETTO_MAX_DEPTH);
	assert_int_equal(want->el_calls[NFUNCS], 3);
	assert_int_equal(got->st.unfinished, 3);
	assert_int_equal(got->st.unmatched_exits, input_stats.unmatched_exits + 1);
	assert_int_equal(got->st.inferred_exits, 4000); /* counted once */
	assert_int_equal(got->inferred, 4000);
	assert_int_equal(got->st.depth_capped, input_stats.depth_capped + DEEP - 512 + 3);
	assert_int_equal(got->leaves, 40000 + 512 + 3);
	counts_free(want);
	counts_free(got);
	free(want);
	free(got);
	unlink(path);
}

static void test_roundtrip_compressed(void **state)
{
	(void)state;
	roundtrip(NULL, false);
}

static void test_roundtrip_gzip(void **state)
{
	(void)state;
	roundtrip(NULL, true);
}

static void test_roundtrip_small_chunks(void **state)
{
	/* many chunks, and the memory bound forcing early flushes */
	struct perfetto_writer_opts o = { .chunk_bytes = 2048, .max_buffered = 3000 };

	(void)state;
	roundtrip(&o, false);
}

static void test_roundtrip_plain(void **state)
{
	struct perfetto_writer_opts o = { .plain = true };

	(void)state;
	roundtrip(&o, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_compressed),
		cmocka_unit_test(test_roundtrip_gzip),
		cmocka_unit_test(test_roundtrip_small_chunks),
		cmocka_unit_test(test_roundtrip_plain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
