// SPDX-License-Identifier: MIT
/* progress.c: see progress.h. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "record/progress.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void progress__init(struct progress *p, bool quiet)
{
	p->quiet = quiet;
	p->enabled = !quiet && isatty(STDERR_FILENO);
	p->last_ns = now_ns();
	p->last_events = 0;
	p->rate = 0;
}

static void human(char *buf, size_t len, double v)
{
	if (v >= 1e9)
		snprintf(buf, len, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(buf, len, "%.1fk", v / 1e3);
	else
		snprintf(buf, len, "%.0f", v);
}

bool progress__due(const struct progress *p)
{
	return p->enabled && now_ns() - p->last_ns >= 500000000ull;
}

void progress__tick(struct progress *p, uint64_t events, uint64_t drops)
{
	uint64_t t = now_ns();
	char rate[32], total[32];

	if (!p->enabled || t <= p->last_ns)
		return;
	p->rate = (double)(events - p->last_events) * 1e9 / (double)(t - p->last_ns);
	p->last_ns = t;
	p->last_events = events;
	human(rate, sizeof(rate), p->rate);
	human(total, sizeof(total), (double)events);
	fprintf(stderr, "\r\033[Ksledtrace: %s events/s, %s events, %llu dropped", rate, total,
		(unsigned long long)drops);
}

void progress__clear(struct progress *p)
{
	if (p->enabled)
		fprintf(stderr, "\r\033[K");
}

void progress__summary(const struct progress *p, const struct record_summary *s)
{
	char size[32];

	if (p->quiet)
		return;
	if (s->bytes >= 1 << 20)
		snprintf(size, sizeof(size), "%.1f MiB", (double)s->bytes / (1 << 20));
	else
		snprintf(size, sizeof(size), "%.1f KiB", (double)s->bytes / 1024);
	fprintf(stderr, "sledtrace: %llu events, %llu of %llu functions hit, %llu dropped, ",
		(unsigned long long)s->events, (unsigned long long)s->functions_hit,
		(unsigned long long)s->functions_attached, (unsigned long long)s->drops);
	if (s->switch_drops)
		fprintf(stderr, "%llu scheduler switches dropped (on-CPU times are off), ",
			(unsigned long long)s->switch_drops);
	if (s->gaps)
		fprintf(stderr, "%llu coverage gap%s (calls may be missing), ",
			(unsigned long long)s->gaps, s->gaps == 1 ? "" : "s");
	if (s->discarded)
		fprintf(stderr, "no trace built (%s discards it)", s->path);
	else
		fprintf(stderr, "%s written to %s (%.2f bytes/event)", size, s->path,
			s->events ? (double)s->bytes / (double)s->events : 0.0);
	if (s->inferred || s->unmatched || s->unfinished)
		fprintf(stderr, "; exits inferred %llu, unmatched %llu, unfinished %llu",
			(unsigned long long)s->inferred, (unsigned long long)s->unmatched,
			(unsigned long long)s->unfinished);
	fputc('\n', stderr);
}
