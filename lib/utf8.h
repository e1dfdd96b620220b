/*
 * utf8.h - bytes that may not be UTF-8, made into text that is.
 *
 * Names come from the program (argv, file names, clang's source records)
 * and may hold any byte: a Latin-1 file name, an argument in a legacy
 * encoding.  JSON and the outputs hold only UTF-8, and a parser (Jansson)
 * refuses a whole document for one bad byte.  mapprof's one rule, wherever
 * such bytes meet text: valid UTF-8 is kept as it is, and every other byte
 * becomes the character U+0080..U+00FF of the same value (how Latin-1 reads
 * it; in JSON the collector writes it as \u00XX).  Nothing is dropped: each
 * byte stays one character.
 *
 * The sequence checks are inline for the collector, which links no lib/
 * object; utf8_latin1() allocates and is for the report side.
 */
#ifndef MAPPROF_LIB_UTF8_H
#define MAPPROF_LIB_UTF8_H

#include <stddef.h>

/* How many bytes the UTF-8 sequence led by byte c has (1-4); 0 when c leads none. */
static inline int utf8_seq_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/*
 * Whether byte c may come after the first k (>= 1) bytes of a sequence led
 * by 'lead': a continuation byte, in the range that keeps the sequence
 * shortest, below U+110000 and off the UTF-16 surrogates.
 */
static inline int utf8_seq_next(unsigned char lead, int k, unsigned char c)
{
	if ((c & 0xc0) != 0x80)
		return 0;
	if (k == 1) {
		if (lead == 0xe0)
			return c >= 0xa0;
		if (lead == 0xed)
			return c <= 0x9f;
		if (lead == 0xf0)
			return c >= 0x90;
		if (lead == 0xf4)
			return c <= 0x8f;
	}
	return 1;
}

/* The length of the valid sequence at s (n bytes left), or 0 when none starts there. */
static inline size_t utf8_valid_at(const unsigned char *s, size_t n)
{
	int len = utf8_seq_len(s[0]);
	if (!len || (size_t)len > n)
		return 0;
	for (int k = 1; k < len; k++)
		if (!utf8_seq_next(s[0], k, s[k]))
			return 0;
	return (size_t)len;
}

/* Whether the n bytes at s are all valid UTF-8. */
int utf8_valid(const char *s, size_t n);

/*
 * The n bytes at s as UTF-8 by the rule above, NUL-terminated, malloc'ed
 * (the caller's); *out_len (when not NULL) gets its length.  NULL when out
 * of memory.
 */
char *utf8_latin1(const char *s, size_t n, size_t *out_len);

#endif
