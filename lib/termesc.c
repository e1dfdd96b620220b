/*
 * termesc.c - text made safe for a terminal (see termesc.h).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/termesc.h"

static const char hex[] = "0123456789abcdef";

/* The bytes a sequence led by 'c' has after it; -1: not a lead byte. */
static int trail_bytes(unsigned char c)
{
	if (c >= 0xc2 && c <= 0xdf)
		return 1;
	if (c >= 0xe0 && c <= 0xef)
		return 2;
	if (c >= 0xf0 && c <= 0xf4)
		return 3;
	return -1;
}

/* 1 when 'c' may be the k-th byte (k >= 1) of a sequence led by 'lead'
 * (no overlong forms, no surrogates, nothing past U+10FFFF). */
static int trail_ok(unsigned char lead, int k, unsigned char c)
{
	unsigned char lo = 0x80, hi = 0xbf;

	if (k == 1) {
		if (lead == 0xe0)
			lo = 0xa0;
		else if (lead == 0xed)
			hi = 0x9f;
		else if (lead == 0xf0)
			lo = 0x90;
		else if (lead == 0xf4)
			hi = 0x8f;
	}
	return c >= lo && c <= hi;
}

/* Code points that are valid UTF-8 and still change what a terminal shows. */
static int cp_escaped(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static size_t put_byte(char *out, unsigned char c)
{
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

size_t termesc(char *out, const char *s, size_t n, unsigned flags, int final, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < n) {
		unsigned char c = u[i];
		int t, k;

		if (c < 0x80) {
			if (c >= 0x20 && c != 0x7f) {
				out[o++] = (char)c;
			} else if ((flags & TERMESC_LINES) && (c == '\n' || c == '\t')) {
				out[o++] = (char)c;
			} else if (c == '\n' || c == '\t' || c == '\r') {
				out[o++] = '\\';
				out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
			} else {
				o += put_byte(out + o, c);
			}
			i++;
			continue;
		}
		t = trail_bytes(c);
		for (k = 1; t > 0 && k <= t && i + (size_t)k < n; k++)
			if (!trail_ok(c, k, u[i + k]))
				break;
		if (t > 0 && k == t + 1) {
			unsigned cp = c & (0x7f >> (t + 1));
			for (k = 1; k <= t; k++)
				cp = cp << 6 | (u[i + k] & 0x3f);
			if (cp_escaped(cp)) {
				out[o++] = '\\';
				out[o++] = 'u';
				for (int sh = 12; sh >= 0; sh -= 4)
					out[o++] = hex[(cp >> sh) & 15];
			} else {
				memcpy(out + o, u + i, (size_t)t + 1);
				o += (size_t)t + 1;
			}
			i += (size_t)t + 1;
			continue;
		}
		/* A sound beginning cut by the end of this piece: wait for the rest. */
		if (t > 0 && i + (size_t)k == n && !final)
			break;
		o += put_byte(out + o, c);
		i++;
	}
	*used = i;
	return o;
}

char *termesc_dup(const char *s, unsigned flags)
{
	size_t n, used, len;
	char *out;

	if (!s)
		s = "(null)";
	n = strlen(s);
	out = malloc(TERMESC_MAX(n) + 1);
	if (!out)
		return NULL;
	len = termesc(out, s, n, flags, 1, &used);
	out[len] = 0;
	return out;
}

void termesc_line(FILE *f, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	termesc_fputs(text ? text : "(out of memory)", f, 0);
	fputc('\n', f);
	free(text);
}

int termesc_fputs(const char *s, FILE *f, unsigned flags)
{
	char buf[TERMESC_MAX(256)];
	size_t n = s ? strlen(s) : 0;

	if (!s)
		return fputs("(null)", f);
	/* In pieces: a long string needs no allocation. */
	while (n) {
		size_t take = n < 256 ? n : 256, used, len;

		len = termesc(buf, s, take, flags, take == n, &used);
		if (!used) {
			/* Only a cut sequence's start is left in this piece: take it whole. */
			len = termesc(buf, s, take, flags, 1, &used);
		}
		if (len && fwrite(buf, 1, len, f) != len)
			return EOF;
		s += used;
		n -= used;
	}
	return 0;
}
