/* perfetto_writer.c: placeholder until this module lands. */
