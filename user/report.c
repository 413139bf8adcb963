/* report.c: placeholder until this module lands. */
