/* SPDX-License-Identifier: MIT */
/* capture_values.h: a captured call's record (struct sled_capture) shown
 * as its capture plan says (select/capture.h), as values of the frame it
 * opens or closes (model/values.h). */
#ifndef SLEDTRACE_CAPTURE_VALUES_H
#define SLEDTRACE_CAPTURE_VALUES_H

#include <stddef.h>

#include "model/frames.h"
#include "select/capture.h"
#include "sledtrace.h"

/* Attaches f's arguments (ret false: the record is an entry's) or its
 * return value to t's top frame.  size: the record's, which says whether
 * it carries strings.  0 or -ENOMEM. */
int capture_values__attach(const struct capture_fn *f, const struct sled_capture *c, size_t size,
			   bool ret, struct fb_thread *t);

#endif
