/* symbols.c: placeholder until this module lands. */
