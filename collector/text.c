/*
 * text.c - messages on stderr and JSON strings (see text.h).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/text.h"
#include "lib/termesc.h"

void clog_msg(const char *fmt, ...)
{
	char line[CLOG_LINE_MAX], esc[TERMESC_MAX(512)];
	size_t len, used;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	len = strlen(line);
	/*
	 * Paths and names in it are the program's (control characters would
	 * reach the terminal): escaped as the CLI escapes what it prints
	 * (lib/termesc.h), piece by piece on the stack (no heap in the
	 * program's process).  stderr's lock held throughout: another thread's
	 * message cannot cut into the line.
	 */
	flockfile(stderr);
	fputs_unlocked("mapprof-collector: ", stderr);
	for (size_t at = 0; at < len; at += used) {
		size_t k = len - at < 512 ? len - at : 512;
		size_t out = termesc(esc, line + at, k, 0, at + k == len, &used);
		if (!used)
			used = k;  /* cannot happen with 'final'; never loop forever */
		fwrite_unlocked(esc, 1, out, stderr);
	}
	fputc_unlocked('\n', stderr);
	funlockfile(stderr);
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

#define ARENA_BLOCK ((size_t)64 << 10)

static pthread_mutex_t arena_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *arena_next, *arena_end;

void *text_alloc(size_t n)
{
	void *p = NULL;

	n = (n + 15) & ~(size_t)15;
	if (n > ARENA_BLOCK / 4) {
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return p == MAP_FAILED ? NULL : p;
	}
	pthread_mutex_lock(&arena_mu);
	if (!arena_next || (size_t)(arena_end - arena_next) < n) {
		unsigned char *b = mmap(NULL, ARENA_BLOCK, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b != MAP_FAILED) {
			arena_next = b;
			arena_end = b + ARENA_BLOCK;
		}
	}
	if (arena_next && (size_t)(arena_end - arena_next) >= n) {
		p = arena_next;
		arena_next += n;
	}
	pthread_mutex_unlock(&arena_mu);
	return p;
}

char *text_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = text_alloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t ncap = (b->len + n + 1) * 2;
		char *np = text_alloc(ncap);
		if (!np)
			return;
		if (b->p)
			memcpy(np, b->p, b->len + 1);
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
