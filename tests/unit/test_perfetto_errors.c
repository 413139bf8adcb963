// SPDX-License-Identifier: MIT
/* test_perfetto_errors.c: the Perfetto reader and writer when things go
 * wrong.  Damaged copies of the synthetic recording's file (truncated,
 * byte-flipped, not a trace, empty, missing) must fail cleanly with one
 * line of error, and never crash; a writer onto a full disk must fail. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/perfetto/perfetto_reader.h"
#include "format/perfetto/perfetto_writer.h"
#include "perfetto_recording.h"

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void store(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* Returns the reader's status; err gets its message. */
static int read_damaged(const char *path, char *err, size_t errlen)
{
	struct counts *c = calloc(1, sizeof(*c));
	struct frame_sink sink = { &counting_ops, c };
	int rc;

	assert_non_null(c);
	rc = perfetto_reader__read(path, &sink, err, errlen);
	if (rc)
		assert_true(strlen(err) > 0 && !strchr(err, '\n'));
	counts_free(c);
	free(c);
	return rc;
}

static void test_damaged(void **state)
{
	char good[] = "/tmp/sledtrace-good-XXXXXX", bad[] = "/tmp/sledtrace-bad-XXXXXX";
	int fd1 = mkstemp(good), fd2 = mkstemp(bad);
	char err[256];
	uint8_t *p;
	size_t n;

	(void)state;
	assert_true(fd1 >= 0 && fd2 >= 0);
	close(fd1);
	close(fd2);
	write_trace(good, NULL, false);
	p = load(good, &n);
	assert_true(n > 1000);
	/* the header packet alone (a sledtrace file without its stats), too */
	size_t cuts[] = { 1, 2, 3, 2 + (size_t)p[1], 40, n / 4, n / 2, n - 100, n - 2, n - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		store(bad, p, cuts[i]);
		assert_true(read_damaged(bad, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "truncated at byte"));
	}
	p[n / 2] ^= 0xff;
	store(bad, p, n);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	p[n / 2] ^= 0xff;
	for (size_t i = 0; i < n; i += n / 97 + 1) { /* must never crash */
		p[i] ^= 0x5a;
		store(bad, p, n);
		read_damaged(bad, err, sizeof(err));
		p[i] ^= 0x5a;
	}
	store(bad, (const uint8_t *)"hello, world\n", 13);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "not a Perfetto trace"));
	store(bad, p, 0);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	assert_true(read_damaged("/nonexistent/trace", err, sizeof(err)) < 0);
	free(p);
	unlink(good);
	unlink(bad);
}

static void test_write_error(void **state)
{
	struct perfetto_writer *w = NULL;
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), NULL, &w), -ENOSPC);
	assert_null(w);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
