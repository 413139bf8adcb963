/* xray_map.c: placeholder until this module lands. */
