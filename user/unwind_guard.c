/* unwind_guard.c: placeholder until this module lands. */
