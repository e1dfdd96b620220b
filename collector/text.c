/*
 * text.c - messages on stderr and JSON strings (see text.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/text.h"

void clog_msg(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	/* One fputs of the whole line: another thread's message cannot cut into it. */
	n = snprintf(line, sizeof(line), "mapprof-collector: ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fputs(line, stderr);
}

size_t json_escape(unsigned char c, char esc[8])
{
	static const char hex[] = "0123456789abcdef";

	if (c == '"' || c == '\\') {
		esc[0] = '\\';
		esc[1] = (char)c;
		return 2;
	}
	if (c < 0x20) {
		memcpy(esc, "\\u00", 4);
		esc[4] = hex[c >> 4];
		esc[5] = hex[c & 15];
		return 6;
	}
	esc[0] = (char)c;
	return 1;
}

void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t ncap = (b->len + n + 1) * 2;
		char *np = realloc(b->p, ncap);
		if (!np)
			return;
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

void sb_json_str(struct sbuf *b, const char *s, size_t n)
{
	char esc[8];

	sb_put(b, "\"", 1);
	for (size_t i = 0; i < n; i++)
		sb_put(b, esc, json_escape((unsigned char)s[i], esc));
	sb_put(b, "\"", 1);
}
