/* frames.c: placeholder until this module lands. */
