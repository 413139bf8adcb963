/* perfetto_reader.c: placeholder until this module lands. */
