/* progress.c: placeholder until this module lands. */
