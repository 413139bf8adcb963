// SPDX-License-Identifier: MIT
/* fuzz_filter_file.c: libFuzzer target for the filter file parser
 * (filter__load_file), which reads files users edit by hand.  Build and run
 * from the repository root:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Iuser fuzz/fuzz_filter_file.c user/select/filter.c user/util/output_file.c -o fuzz_filter_file
 *   ./fuzz_filter_file -max_total_time=20 -max_len=512
 *
 * Besides memory errors it checks that writing a loaded filter and loading
 * it again gives the same patterns back (same kinds, same verdicts on the
 * input's own lines), and that a second write is byte-identical: the
 * writer's escaping of '#', '!' and edge blanks must survive the loader. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "select/filter.h"

static char in_path[64], out_path[64], out2_path[64];

static void setup(void)
{
	int fd = memfd_create("filter_in", 0);

	if (fd < 0)
		abort();
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", fd);
	snprintf(out_path, sizeof(out_path), "/tmp/fuzz_filter.%d.a", (int)getpid());
	snprintf(out2_path, sizeof(out2_path), "/tmp/fuzz_filter.%d.b", (int)getpid());
}

static void write_input(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(in_path, "w");

	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!fp || getdelim(&buf, &len, '\0', fp) < 0)
		abort();
	fclose(fp);
	return buf;
}

static void check_same(const struct filter *a, const struct filter *b, const uint8_t *data,
		       size_t size)
{
	char *text = strndup((const char *)data, size);
	char *save = NULL;

	if (filter__count(a) != filter__count(b) || !text)
		abort();
	for (size_t i = 0; i < filter__count(a); i++) {
		bool ea, eb;

		filter__pattern(a, i, &ea);
		filter__pattern(b, i, &eb);
		if (ea != eb)
			abort();
	}
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (filter__match(a, line, NULL) != filter__match(b, line, NULL))
			abort();
	free(text);
}

static void round_trip(const struct filter *f, const uint8_t *data, size_t size)
{
	struct filter *g = filter__new();
	char err[1024];
	char *first, *second;

	if (!g || filter__write_file(f, out_path, "/obj", "abcd", err, sizeof(err)) ||
	    filter__load_file(g, out_path, NULL, "abcd", err, sizeof(err)))
		abort();
	check_same(f, g, data, size);
	if (filter__write_file(g, out2_path, "/obj", "abcd", err, sizeof(err)))
		abort();
	first = slurp(out_path);
	second = slurp(out2_path);
	if (strcmp(first, second))
		abort();
	free(first);
	free(second);
	filter__free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct filter *f;
	char err[1024];
	int ret;

	if (!in_path[0])
		setup();
	write_input(data, size);
	f = filter__new();
	if (!f)
		return 0;
	err[0] = '\0';
	ret = filter__load_file(f, in_path, NULL, "0123456789abcdef", err, sizeof(err));
	if (ret && ret != -EINVAL && ret != -ESTALE && ret != -ENOMEM)
		abort();
	if (ret && !err[0])
		abort(); /* every error carries a message */
	if (!ret || ret == -ESTALE)
		round_trip(f, data, size);
	filter__free(f);
	return 0;
}
