/* collector.c: placeholder until this module lands. */
