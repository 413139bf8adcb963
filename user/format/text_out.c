// SPDX-License-Identifier: MIT
/* text_out.c: see text_out.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format/text_out.h"

void text_out__json(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

char *text_out__json_quote(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	text_out__json(f, s);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void text_out__csv(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void text_out__tsv(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

const char *text_out__ns(char *buf, size_t n, uint64_t ns, const char *sep)
{
	if (ns < 1000)
		snprintf(buf, n, "%" PRIu64 "%sns", ns, sep);
	else if (ns < 1000000)
		snprintf(buf, n, "%.3f%sus", ns / 1e3, sep);
	else if (ns < 1000000000)
		snprintf(buf, n, "%.3f%sms", ns / 1e6, sep);
	else
		snprintf(buf, n, "%.3f%ss", ns / 1e9, sep);
	return buf;
}
