/* attach.c: placeholder until this module lands. */
