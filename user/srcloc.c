/* srcloc.c: placeholder until this module lands. */
