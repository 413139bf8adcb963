// SPDX-License-Identifier: MIT
/* demo.c: the program scripts/demo traces - a small word-frequency job.
 *
 * main generates a synthetic log (LINES lines of pseudo-random words),
 * NTHREADS workers each parse a slice of it into a private hash table and
 * compute a keyed digest of every line, then main merges the tables, sorts
 * the words by frequency and prints the top ten with a checksum.  It runs
 * in about a second untraced and makes a few hundred thousand calls of
 * XRay-instrumented functions, so a trace of it is readable: a tree per
 * thread, a hot pair (parse_line, digest_line), rare table growth, and a
 * qsort comparator called back from libc.
 *
 * Usage: demo [LINES [THREADS]]   (defaults 100000 and 4) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define DIGEST_ROUNDS 160

struct word {
	char text[16];
	uint64_t hash;
	unsigned long count;
};

struct table {
	struct word *slots;
	size_t cap, used;
};

struct job {
	pthread_t thread;
	char **lines;
	size_t first, end;
	struct table words;
	uint64_t digest;
};

static const char *const syllables[] = {
	"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua", "ph", "or",
};

/* A reproducible generator: every run makes the same corpus. */
static inline uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline uint64_t hash_bytes(const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h;
}

__attribute__((noinline)) static char **make_corpus(size_t nlines)
{
	char **lines = malloc(nlines * sizeof(*lines));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	if (!lines)
		return NULL;
	for (size_t i = 0; i < nlines; i++) {
		char buf[160];
		size_t len = 0;
		unsigned nwords = 4 + rng_next(&seed) % 8;
		for (unsigned w = 0; w < nwords; w++) {
			/* Skewed lengths and syllables give a Zipf-like vocabulary. */
			unsigned nsyl = 1 + rng_next(&seed) % 3;
			for (unsigned s = 0; s < nsyl; s++) {
				uint64_t r = rng_next(&seed);
				const char *syl = syllables[(r % 12) * (r % 12) / 12];
				size_t sl = strlen(syl);
				memcpy(buf + len, syl, sl);
				len += sl;
			}
			buf[len++] = ' ';
		}
		buf[len - 1] = '\0';
		lines[i] = strdup(buf);
		if (!lines[i])
			return NULL;
	}
	return lines;
}

__attribute__((noinline)) static int table_grow(struct table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct word *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->slots[i].count)
			continue;
		size_t j = t->slots[i].hash & (cap - 1);
		while (slots[j].count)
			j = (j + 1) & (cap - 1);
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

/* Adds n occurrences of a word (len < 16) to t. */
static inline int table_add(struct table *t, const char *w, size_t len, uint64_t h, unsigned long n)
{
	if ((t->used + 1) * 4 > t->cap * 3 && table_grow(t) < 0)
		return -1;
	size_t j = h & (t->cap - 1);
	while (t->slots[j].count) {
		const char *text = t->slots[j].text;
		if (t->slots[j].hash == h && !memcmp(text, w, len) && !text[len])
			break;
		j = (j + 1) & (t->cap - 1);
	}
	if (!t->slots[j].count) {
		memcpy(t->slots[j].text, w, len);
		t->slots[j].text[len] = '\0';
		t->slots[j].hash = h;
		t->used++;
	}
	t->slots[j].count += n;
	return 0;
}

__attribute__((noinline)) static int parse_line(struct table *t, const char *line)
{
	const char *p = line;
	while (*p) {
		const char *start = p;
		while (*p && *p != ' ')
			p++;
		size_t len = (size_t)(p - start);
		if (len > 15)
			len = 15;
		if (len && table_add(t, start, len, hash_bytes(start, len), 1) < 0)
			return -1;
		if (*p)
			p++;
	}
	return 0;
}

/* A deliberately expensive keyed digest: the CPU-bound part of the job. */
__attribute__((noinline)) static uint64_t digest_line(const char *line, uint64_t key)
{
	size_t n = strlen(line);
	uint64_t h = key;
	for (int round = 0; round < DIGEST_ROUNDS; round++) {
		for (size_t i = 0; i < n; i++) {
			h ^= (unsigned char)line[i] + (uint64_t)round;
			h *= 0x100000001b3ull;
			h ^= h >> 29;
		}
	}
	return h;
}

__attribute__((noinline)) static void *worker(void *arg)
{
	struct job *job = arg;
	for (size_t i = job->first; i < job->end; i++) {
		if (parse_line(&job->words, job->lines[i]) < 0)
			return "out of memory";
		job->digest += digest_line(job->lines[i], i);
	}
	return NULL;
}

__attribute__((noinline)) static int merge_into(struct table *all, const struct table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		const struct word *w = &t->slots[i];
		if (w->count && table_add(all, w->text, strlen(w->text), w->hash, w->count) < 0)
			return -1;
	}
	return 0;
}

__attribute__((noinline)) static int by_count(const void *a, const void *b)
{
	const struct word *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->text, y->text);
}

__attribute__((noinline)) static size_t sort_words(struct table *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i].count)
			t->slots[n++] = t->slots[i];
	qsort(t->slots, n, sizeof(*t->slots), by_count);
	return n;
}

int main(int argc, char **argv)
{
	size_t nlines = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
	int nthreads = argc > 2 ? atoi(argv[2]) : 4;
	struct job jobs[MAX_THREADS] = { 0 };
	struct table all = { 0 };
	uint64_t digest = 0;

	if (nlines == 0 || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "usage: demo [LINES [THREADS (1-%d)]]\n", MAX_THREADS);
		return 2;
	}
	char **lines = make_corpus(nlines);
	if (!lines) {
		fprintf(stderr, "demo: out of memory\n");
		return 1;
	}
	for (int i = 0; i < nthreads; i++) {
		jobs[i].lines = lines;
		jobs[i].first = nlines * (size_t)i / (size_t)nthreads;
		jobs[i].end = nlines * (size_t)(i + 1) / (size_t)nthreads;
		if (pthread_create(&jobs[i].thread, NULL, worker, &jobs[i]) != 0) {
			fprintf(stderr, "demo: cannot create thread %d\n", i);
			return 1;
		}
	}
	for (int i = 0; i < nthreads; i++) {
		void *err;
		pthread_join(jobs[i].thread, &err);
		if (err || merge_into(&all, &jobs[i].words) < 0) {
			fprintf(stderr, "demo: out of memory\n");
			return 1;
		}
		digest ^= jobs[i].digest;
		free(jobs[i].words.slots);
	}
	size_t n = sort_words(&all);
	printf("%zu lines, %zu distinct words, digest %016llx\n", nlines, n,
	       (unsigned long long)digest);
	for (size_t i = 0; i < n && i < 10; i++)
		printf("%8lu  %s\n", all.slots[i].count, all.slots[i].text);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i]);
	free(lines);
	free(all.slots);
	return 0;
}
