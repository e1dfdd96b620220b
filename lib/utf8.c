/*
 * utf8.c - text that may not be UTF-8, made into text that is (utf8.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/utf8.h"

int utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < n;) {
		size_t k = p[i] < 0x80 ? 1 : utf8_valid_at(p + i, n - i);
		if (!k)
			return 0;
		i += k;
	}
	return 1;
}

char *utf8_latin1(const char *s, size_t n, size_t *out_len)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;

	/* Each byte grows to two at most. */
	if (n > ((size_t)-1 - 1) / 2 || !(out = malloc(2 * n + 1)))
		return NULL;
	o = out;
	for (size_t i = 0; i < n;) {
		size_t k = p[i] < 0x80 ? 1 : utf8_valid_at(p + i, n - i);
		if (k) {
			memcpy(o, p + i, k);
			o += k;
			i += k;
		} else {
			/* U+0080..U+00FF: 110000xx 10xxxxxx */
			*o++ = (char)(0xc0 | p[i] >> 6);
			*o++ = (char)(0x80 | (p[i] & 0x3f));
			i++;
		}
	}
	*o = '\0';
	if (out_len)
		*out_len = (size_t)(o - out);
	return out;
}
