/* SPDX-License-Identifier: MIT */
/* flame_svg.h: a flame graph of a merged calltree as one self-contained
 * SVG: no script, no external resource; each frame's <title> is its
 * tooltip (name, calls, inclusive and self time, share). */
#ifndef SLEDTRACE_FLAME_SVG_H
#define SLEDTRACE_FLAME_SVG_H

#include <stdio.h>

#include "model/calltree.h"

struct flame_svg_opts {
	unsigned width;	  /* image width in pixels; 0: 1200 */
	double min_width; /* frames narrower than this (pixels) are left out; <0: 0.1 */
};

int flame_svg__write(const struct calltree *ct, const struct flame_svg_opts *o, FILE *f);

#endif
