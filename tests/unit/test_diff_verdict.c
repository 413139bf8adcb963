// SPDX-License-Identifier: MIT
/* test_diff_verdict.c: the verdicts of `sledtrace diff` on runs made up
 * here, where the truth is known: a program of 200 functions whose times
 * carry log-normal noise, a shift shared by every function that differs
 * run by run, and a drift that makes every head run slower.
 *   A/A:  nothing changed; over 100 trials no time rule may fire, and even
 *         `self>0%` (any significant rise) fires in no more than 1 -
 *         confidence of them: the false-alarm rate the method promises.
 *   A/B:  one function holding 5% of the run made 25% slower fires
 *         `self>10%`, and nothing else does.
 *   Runs: one run per side is inconclusive; so is a change within the
 *         spread of counts that differ, and a run that lost events.
 *   CPU:  function 0 waiting off the CPU half again as long in head fires
 *         `self>10%` and not `cpu-self>10%`; made slower on the CPU, it
 *         fires both; a note names runs without scheduler switches.
 *   Costs: each count of record --costs is judged by its own runs'
 *         spread, not the calls'; a self count fires on its function only.
 *   Bad:  runs without an object in common cannot be compared.
 *   Clear: a pass clears a function only when the interval of its change
 *         stays inside the threshold: with 30% noise a run, f0's does not,
 *         and the note says how many runs would see +10% in it; with 1%,
 *         every function is cleared.
 * Also the statistics underneath (Student's t, Benjamini-Hochberg) on
 * values from tables. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli/values.h"
#include "diff/diff.h"
#include "diff/estimate_stats.h"
#include "diff/judge_rules.h"
#include "diff/print_text.h"

#define NFUNCS 200
#define TRIALS 100

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/* A made-up program: function i takes base_ns[i] per run, its calls
 * calls[i]; sizes spread over four decades like a real profile's. */
struct program {
	double base_ns[NFUNCS];
	uint64_t calls[NFUNCS];
	double noise; /* per-run log sd of each function */
};

static void make_program(struct program *p, double noise)
{
	for (int i = 0; i < NFUNCS; i++) {
		p->base_ns[i] = 1e3 * pow(10, 4 * uniform());
		p->calls[i] = 1 + (uint64_t)(1000 * uniform());
	}
	p->base_ns[0] = 0; /* set below: 5% of the run */
	p->noise = noise;
}

static double run_total(const struct program *p)
{
	double t = 0;

	for (int i = 1; i < NFUNCS; i++)
		t += p->base_ns[i];
	return t;
}

struct setup {
	const char *rules[4];
	size_t nrules;
	double floor;
	size_t nruns[2];
	double drift;	 /* every head run: x (1 + drift) */
	double slower;	 /* function 0 in head: x (1 + slower) */
	uint64_t lost;	 /* ring-buffer drops in the first base run */
	bool other_head; /* head runs of another program */
	double waits;	 /* function 0 in head: off the CPU this share of its time more */
	bool nosched;	 /* the first base run was recorded with --no-sched */
};

/* The last compare()'s rules: a diff reads them until it is freed. */
static struct diff_rule *rules_buf[8];
static size_t nrules_buf;
/* Sum of the log shared shift per side, to know what the diff should see. */
static double shift_sum[2];

static void add_run(struct diff *d, const struct program *p, const struct setup *s,
		    enum diff_side side, size_t k)
{
	struct trace_stats st = { .events = 1000,
				  .ringbuf_drops = side || k ? 0 : s->lost,
				  .switches = !side && !k && s->nosched ? 0 : 100,
				  .no_sched = !side && !k && s->nosched };
	double shared = exp(0.05 * normal()) * (side ? 1 + s->drift : 1);
	char name[32];

	shift_sum[side] += log(shared);
	assert_int_equal(diff__add_run(d, side, side ? "head" : "base", &st), 0);
	assert_int_equal(diff__add_object(d, side && s->other_head ? "other" : "prog"), 0);
	for (int i = 0; i < NFUNCS; i++) {
		double t = p->base_ns[i] * shared * exp(p->noise * normal());
		struct report_row row = { .calls = p->calls[i] };

		if (!i && side)
			t *= 1 + s->slower;
		row.cpu_self_ns = row.cpu_total_ns = (uint64_t)t;
		if (!i && side)
			t *= 1 + s->waits;
		row.self_ns = row.total_ns = (uint64_t)t;
		snprintf(name, sizeof(name), "f%d", i);
		assert_int_equal(diff__add_function(d, name,
						    side && s->other_head ? "other" : "prog", NULL,
						    &row),
				 0);
	}
}

/* Builds and finishes a diff of made-up runs; the caller frees it. */
static struct diff *compare(struct program *p, const struct setup *s, int *rc)
{
	struct diff_opts o = { .confidence = 0.95,
			       .noise_floor = s->floor,
			       .times = REPORT_TIMES_RAW,
			       .rules = rules_buf,
			       .nrules = s->nrules };
	char err[512];
	struct diff *d;

	for (size_t k = 0; k < nrules_buf; k++)
		diff_rule__free(rules_buf[k]);
	for (size_t k = 0; k < s->nrules; k++)
		assert_int_equal(diff_rule__parse(s->rules[k], cli_parse_duration, &rules_buf[k],
						  err, sizeof(err)),
				 0);
	nrules_buf = s->nrules;
	p->base_ns[0] = 0.05 * run_total(p) / 0.95;
	shift_sum[0] = shift_sum[1] = 0;
	assert_int_equal(diff__new(&o, &d), 0);
	for (int side = 0; side < 2; side++)
		for (size_t k = 0; k < s->nruns[side]; k++)
			add_run(d, p, s, (enum diff_side)side, k);
	*rc = diff__finish(d, err, sizeof(err));
	return d;
}

static const struct diff_row *row_named(const struct diff *d, const char *name)
{
	for (size_t i = 0; i < diff__nrows(d); i++)
		if (!strcmp(diff__row(d, i)->name, name))
			return diff__row(d, i);
	fail_msg("no row %s", name);
	return NULL;
}

static int aa_trials(const struct setup *s, int *any)
{
	struct program p;
	int rc;

	for (int t = 0; t < TRIALS; t++) {
		struct diff *d;

		make_program(&p, 0.05);
		d = compare(&p, s, &rc);
		assert_int_equal(rc, 0);
		for (size_t k = 0; k < s->nrules; k++)
			any[k] += !!(diff__fired(d) & (1ULL << k));
		diff__free(d);
	}
	return 0;
}

static void test_aa(void **state)
{
	struct setup s = { { "self>10%", "self>0%" }, 2, 0.005, { 5, 5 }, .drift = 0.08 };
	struct setup bare = { { "self>0%" }, 1, 0, { 5, 5 }, .drift = 0.08 };
	int any[2] = { 0 }, any_bare[1] = { 0 };

	(void)state;
	aa_trials(&s, any);
	/* without the floor, what the test alone lets through: at most 1 -
	 * confidence of the trials (half of it, rises only, in theory) */
	aa_trials(&bare, any_bare);
	print_message(
		"A/A, %d trials, 5 runs a side, +8%% drift: self>10%% fired in %d, "
		"self>0%% in %d; with no noise floor self>0%% in %d\n",
		TRIALS, any[0], any[1], any_bare[0]);
	assert_int_equal(any[0], 0);
	assert_true(any[1] <= TRIALS * 5 / 100);
	assert_true(any_bare[0] <= TRIALS * 5 / 100);
}

static void test_ab(void **state)
{
	struct setup s = { { "self>10%" }, 1, 0.005, { 5, 5 }, .drift = 0.08, .slower = 0.25 };
	struct program p;
	int rc;

	(void)state;
	for (int t = 0; t < 20; t++) {
		struct diff *d;
		double seen;

		make_program(&p, 0.05);
		d = compare(&p, &s, &rc);
		assert_int_equal(rc, 0);
		assert_int_equal(diff__summary(d)->verdict, DIFF_FAIL);
		for (size_t i = 0; i < diff__nrows(d); i++)
			assert_int_equal(diff__row(d, i)->fired != 0,
					 !strcmp(diff__row(d, i)->name, "f0"));
		/* the shared shift, drift and jitter, is measured and taken out */
		seen = exp(shift_sum[1] / 5 - shift_sum[0] / 5);
		assert_true(fabs(diff__summary(d)->shift[DIFF_SELF].ratio / seen - 1) < 0.01);
		diff__free(d);
	}
}

static void test_one_run(void **state)
{
	struct setup s = { { "self>10%", "calls>0%" }, 2, 0.005, { 1, 1 }, .slower = 0.25 };
	struct program p;
	struct diff *d;
	int rc;

	(void)state;
	make_program(&p, 0.05);
	d = compare(&p, &s, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(diff__summary(d)->verdict, DIFF_INCONCLUSIVE);
	assert_int_equal(diff__fired(d), 0);
	assert_non_null(strstr(diff__summary(d)->reasons[0], "at least 2 runs per side"));
	diff__free(d);
}

static void test_lost_and_programs(void **state)
{
	struct setup s = { { "calls>0%" }, 1, 0.005, { 3, 3 }, .lost = 12 };
	struct program p;
	struct diff *d;
	int rc;

	(void)state;
	make_program(&p, 0.05);
	d = compare(&p, &s, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(diff__summary(d)->verdict, DIFF_INCONCLUSIVE);
	assert_non_null(strstr(diff__summary(d)->reasons[0], "lost events"));
	diff__free(d);
	s = (struct setup){ { "calls>0%" }, 1, 0.005, { 2, 2 }, .other_head = true };
	d = compare(&p, &s, &rc);
	assert_int_equal(rc, -EINVAL);
	diff__free(d);
}

static void note_found(void *ctx, const char *note)
{
	const char **want = ctx;

	if (*want && strstr(note, *want))
		*want = NULL;
}

static void test_cpu(void **state)
{
	struct setup s = { { "self>10%", "cpu-self>10%" }, 2, 0.005, { 5, 5 }, .drift = 0.08 };
	struct program p;
	struct diff *d;
	const char *want;
	int rc;

	(void)state;
	for (int t = 0; t < 10; t++) {
		make_program(&p, 0.05);
		s.waits = 0.5;
		s.slower = 0;
		d = compare(&p, &s, &rc);
		assert_int_equal(rc, 0);
		assert_int_equal(diff__fired(d), 1);
		assert_int_equal(row_named(d, "f0")->fired, 1);
		diff__free(d);
		s.waits = 0;
		s.slower = 0.25;
		d = compare(&p, &s, &rc);
		assert_int_equal(rc, 0);
		assert_int_equal(row_named(d, "f0")->fired, 3);
		for (size_t i = 0; i < diff__nrows(d); i++)
			assert_true(!diff__row(d, i)->fired ||
				    !strcmp(diff__row(d, i)->name, "f0"));
		diff__free(d);
	}
	s = (struct setup){
		{ "cpu-self>10%" }, 1, 0.005, { 5, 5 }, .slower = 0.25, .nosched = true
	};
	d = compare(&p, &s, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(row_named(d, "f0")->fired, 1);
	want = "1 of the 10 runs were recorded with --no-sched";
	diff__notes(d, note_found, &want);
	assert_null(want);
	diff__free(d);
}

/* Whether a change to ratio passes one-sided at alpha with n runs a side,
 * written out again from docs/diff.md: the shift's error shrinks as 5/n. */
static bool sees(const struct diff_estimate *e, double ratio, size_t n, double alpha)
{
	double se = sqrt((2 * e->sd * e->sd + 5 * e->shift_var) / (double)n);

	return log(ratio) >= diff_stats__t_isf(alpha, 2.0 * (double)n - 2) * se;
}

static void test_uncleared(void **state)
{
	struct setup s = { { "self>10%" }, 1, 0.005, { 5, 5 }, .drift = 0.08 };
	struct program p;
	struct diff *d;
	const char *want = "self>10%: a pass does not clear";
	int rc;

	(void)state;
	for (int t = 0; t < 10; t++) {
		const struct diff_uncleared *u;
		const struct diff_row *f0;
		double alpha;

		make_program(&p, 0.30);
		d = compare(&p, &s, &rc);
		assert_int_equal(rc, 0);
		u = &diff__summary(d)->uncleared[0];
		f0 = row_named(d, "f0");
		assert_true(f0->fired || f0->unsure || f0->uncleared == 1);
		assert_true(u->functions >= 1 && u->top);
		for (size_t i = 0; i < diff__nrows(d); i++) {
			const struct diff_row *r = diff__row(d, i);

			assert_false(r->uncleared && (r->fired || r->unsure));
			assert_true(!r->uncleared || r->est[DIFF_SELF].hi > 1.10);
			assert_true(!r->uncleared ||
				    r->est[DIFF_SELF].base_ns <= u->top->est[DIFF_SELF].base_ns);
		}
		/* the first n that sees +10% in the largest, alone among the tested */
		alpha = 0.05 / (double)diff__summary(d)->tested[DIFF_SELF];
		if (u->runs_to_see) {
			assert_true(sees(&u->top->est[DIFF_SELF], 1.10, u->runs_to_see, alpha));
			assert_false(
				sees(&u->top->est[DIFF_SELF], 1.10, u->runs_to_see - 1, alpha));
		} else {
			assert_false(sees(&u->top->est[DIFF_SELF], 1.10, 99, alpha));
		}
		if (diff__summary(d)->verdict == DIFF_PASS) {
			want = "self>10%: a pass does not clear";
			diff__notes(d, note_found, &want);
			assert_null(want);
		}
		diff__free(d);
	}
	make_program(&p, 0.01);
	d = compare(&p, &s, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(diff__summary(d)->verdict, DIFF_PASS);
	assert_int_equal(diff__summary(d)->uncleared[0].functions, 0);
	want = "a pass does not clear";
	diff__notes(d, note_found, &want);
	assert_non_null(want);
	diff__free(d);
}

/* Counts are exact, unless the runs of a side disagree: then a change
 * inside their spread cannot decide, one outside it can. */
static void test_counts(void **state)
{
	struct diff_rule *rules[2];
	struct diff_opts o = { .confidence = 0.95, .noise_floor = 0.005, .rules = rules };
	struct trace_stats st = { 0 };
	static const uint64_t calls[2][3] = { { 10, 12, 11 }, { 12, 13, 12 } };
	char err[256];
	struct diff *d;

	(void)state;
	assert_int_equal(
		diff_rule__parse("calls>0%", cli_parse_duration, &rules[0], err, sizeof(err)), 0);
	assert_int_equal(
		diff_rule__parse("edge-calls>0%", cli_parse_duration, &rules[1], err, sizeof(err)),
		0);
	o.nrules = 2;
	assert_int_equal(diff__new(&o, &d), 0);
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++) {
			struct report_row vary = { .calls = calls[s][k], .self_ns = 1000 };
			struct report_row fixed = { .calls = s ? 7 : 5, .self_ns = 1000 };
			const char *path[4] = { "main", "prog", "fixed", "prog" };
			struct report_edge edge = { .calls = s ? 7 : 5 };

			assert_int_equal(diff__add_run(d, (enum diff_side)s, "run", &st), 0);
			assert_int_equal(diff__add_object(d, "prog"), 0);
			assert_int_equal(diff__add_function(d, "vary", "prog", NULL, &vary), 0);
			assert_int_equal(diff__add_function(d, "fixed", "prog", NULL, &fixed), 0);
			assert_int_equal(diff__add_edge(d, path, &edge), 0);
		}
	assert_int_equal(diff__finish(d, err, sizeof(err)), 0);
	assert_int_equal(row_named(d, "vary")->fired, 0);
	assert_int_equal(row_named(d, "vary")->unsure, 1);
	assert_int_equal(row_named(d, "fixed")->fired, 1);
	assert_int_equal(diff__nedges(d), 1);
	assert_int_equal(diff__edge(d, 0)->fired, 2);
	assert_int_equal(diff__summary(d)->verdict, DIFF_FAIL);
	diff__free(d);
	diff_rule__free(rules[0]);
	diff_rule__free(rules[1]);
}

/* record --costs: each count is judged by its own runs.  "lock" makes
 * the same calls in every run but more system calls in some (a lock
 * contended or not): a rise inside that spread cannot decide, though its
 * calls agree.  "grow" allocates once more in every head run: fired, and
 * on it alone, since costs are its own (self) counts. */
static void test_cost_counts(void **state)
{
	static const uint64_t sys[2][3] = { { 10, 12, 11 }, { 12, 13, 12 } };
	struct diff_rule *rules[2];
	struct diff_opts o = { .confidence = 0.95, .noise_floor = 0.005, .rules = rules };
	struct trace_stats st = { .costs = 1 };
	const char *want = "syscalls differ between the runs of a side (lock in base: 10 to 12";
	char err[256];
	struct diff *d;

	(void)state;
	assert_int_equal(
		diff_rule__parse("syscalls>0%", cli_parse_duration, &rules[0], err, sizeof(err)),
		0);
	assert_int_equal(
		diff_rule__parse("allocs>0%", cli_parse_duration, &rules[1], err, sizeof(err)), 0);
	o.nrules = 2;
	assert_int_equal(diff__new(&o, &d), 0);
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 3; k++) {
			struct report_row lock = { .calls = 4, .self_ns = 1000 };
			struct report_row grow = { .calls = 4, .self_ns = 1000 };
			struct report_row caller = { .calls = 1, .self_ns = 1000 };

			lock.cost_self[COST_SYSCALLS] = sys[s][k];
			grow.cost_self[COST_ALLOCS] = s ? 5 : 4;
			/* inclusive counts grow in every caller: not compared */
			caller.cost_total[COST_ALLOCS] = s ? 5 : 4;
			assert_int_equal(diff__add_run(d, (enum diff_side)s, "run", &st), 0);
			assert_int_equal(diff__add_object(d, "prog"), 0);
			assert_int_equal(diff__add_function(d, "lock", "prog", NULL, &lock), 0);
			assert_int_equal(diff__add_function(d, "grow", "prog", NULL, &grow), 0);
			assert_int_equal(diff__add_function(d, "main", "prog", NULL, &caller), 0);
		}
	assert_int_equal(diff__finish(d, err, sizeof(err)), 0);
	assert_int_equal(row_named(d, "lock")->fired, 0);
	assert_int_equal(row_named(d, "lock")->unsure, 1);
	assert_int_equal(row_named(d, "grow")->fired, 2);
	assert_int_equal(row_named(d, "grow")->status, DIFF_CHANGED);
	assert_int_equal(row_named(d, "main")->fired, 0);
	assert_int_equal(row_named(d, "main")->status, DIFF_SAME);
	assert_int_equal(diff__summary(d)->verdict, DIFF_FAIL);
	diff__notes(d, note_found, &want);
	assert_null(want);
	diff__free(d);
	diff_rule__free(rules[0]);
	diff_rule__free(rules[1]);
}

static void test_stats(void **state)
{
	/* Student's t: P(T > 2.306) = 0.025 at 8 df, P(T > 1) = 0.1955 at 3 */
	static const double p[] = { 0.01, 0.04, 0.03, 0.5, 0.2 };
	bool rej[5];
	size_t order[5];

	(void)state;
	assert_true(fabs(diff_stats__t_sf(2.306004, 8) - 0.025) < 1e-6);
	assert_true(fabs(diff_stats__t_sf(1, 3) - 0.195501) < 1e-6);
	assert_true(fabs(diff_stats__t_sf(-1, 3) - 0.804499) < 1e-6);
	assert_true(fabs(diff_stats__t_isf(0.025, 8) - 2.306004) < 1e-5);
	assert_true(fabs(diff_stats__t_isf(0.975, 30) + 2.042272) < 1e-5);
	/* BH: sorted 0.01 0.03 0.04 0.2 0.5 against q k / 5; the largest k
	 * whose p passes decides.  q 0.05: 0.01 0.02 0.03 0.04 0.05, only
	 * rank 1; q 0.25: 0.05 0.1 0.15 0.2 0.25, rank 4 (0.2 <= 0.2). */
	assert_int_equal(diff_stats__bh(p, 5, 0.05, rej, order), 1);
	assert_true(rej[0] && !rej[1] && !rej[2] && !rej[3] && !rej[4]);
	assert_int_equal(diff_stats__bh(p, 5, 0.25, rej, order), 4);
	assert_true(rej[0] && rej[1] && rej[2] && !rej[3] && rej[4]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),	    cmocka_unit_test(test_counts),
		cmocka_unit_test(test_one_run),	    cmocka_unit_test(test_lost_and_programs),
		cmocka_unit_test(test_ab),	    cmocka_unit_test(test_aa),
		cmocka_unit_test(test_cpu),	    cmocka_unit_test(test_uncleared),
		cmocka_unit_test(test_cost_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
