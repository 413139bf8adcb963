/* SPDX-License-Identifier: MIT */
/* estimate_shift.h: the shift that all functions share, run by run: a machine
 * that is uniformly slower during some runs multiplies every function's
 * time alike, which in logarithms is one constant per run.  It is
 * measured on the functions that hold at least DIFF_SHIFT_MIN_SHARE of
 * every run, in two parts kept apart so that a function that really
 * changed cannot pull the one into the other: how far a run sits from the
 * other runs of its side (the median over the functions of their
 * deviation), and how far head sits from base (the median over the
 * functions of their change).  The medians weigh each function by how
 * closely it follows the runs' shift: 1 / its own run-to-run variance with
 * the shift out (moderated across the functions, as the tests' variances
 * are), so that a long phase that moves only with the machine counts for
 * more than the small functions whose time is mostly probe cost, system
 * calls and first touches; with too few runs to measure that (fewer than
 * two a side beyond the means), by the square root of its share of the
 * run.  Within a side no code differs, so the runs' part takes the weights
 * as they are; the head - base part caps the largest, so that no one
 * function decides it (the one that changed may be the steadiest).  That
 * part is uncertain by the functions' own noise and by how far their
 * changes scatter beyond it; its variance goes into every test.  A
 * function is always corrected by the shift measured on the others, so
 * that it does not take out its own change or noise. */
#ifndef SLEDTRACE_DIFF_ESTIMATE_SHIFT_H
#define SLEDTRACE_DIFF_ESTIMATE_SHIFT_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/judge.h"

/* Only functions holding this share of every run measure the shift. */
#define DIFF_SHIFT_MIN_SHARE 0.001
/* Fewer such functions than this: no shift is measured (the one left out
 * of its own correction leaves at least three). */
#define DIFF_SHIFT_MIN_FUNCTIONS 4

struct diff_shift {
	size_t n, nb;	 /* runs, base runs */
	size_t nref;	 /* functions that measure it */
	double *within;	 /* nref x n: log time less its side's mean */
	double *between; /* nref: head mean - base mean of log time */
	double *weight;	 /* nref: 1 / noise (sqrt of the share without) */
	double *noise;	 /* nref: variance of a run, the shift out */
	double *wrun;	 /* nref: weight within a side, uncapped */
	double *lsize;	 /* nref: mean log time, what noise follows */
	size_t *ref_of;	 /* by row: 1 + its reference index, 0: none */
	double *scratch, *wscratch;
	size_t *order;
	bool measured, by_noise;
	double var; /* of the head - base part */
};

/* Returns 0 or -ENOMEM. */
int diff_shift__measure(struct diff_shift *s, const struct diff_judge *j, enum diff_metric m);
/* c[0..n): the log shift of every run, for row i (not measured: 0).
 * Returns the variance of its head - base part (not measured: 0). */
double diff_shift__for(struct diff_shift *s, size_t i, double *c);
/* exp(head - base) of the shift measured on all functions. */
double diff_shift__overall(struct diff_shift *s);
void diff_shift__free(struct diff_shift *s);

#endif
