/*
 * jsonbuf.c - JSON text through a buffer of its own, numbers without printf.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "report/trace/jsonbuf.h"

int jsonbuf_init(struct jsonbuf *b, FILE *f)
{
	*b = (struct jsonbuf){ .f = f, .out = malloc(JSONBUF_SIZE) };
	return b->out ? 0 : -1;
}

void jsonbuf_release(struct jsonbuf *b)
{
	free(b->out);
	b->out = NULL;
	b->n = 0;
}

void jsonbuf_flush(struct jsonbuf *b)
{
	if (b->n)
		fwrite(b->out, 1, b->n, b->f);
	b->n = 0;
}

/* The decimal digits of v, written backwards from 'end': their start. */
static char *digits(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* No printf: it cost more than the rest of a trace event. */
void jsonbuf_u64(struct jsonbuf *b, uint64_t v)
{
	char buf[20], *s = digits(buf + sizeof(buf), v);
	jsonbuf_mem(b, s, (size_t)(buf + sizeof(buf) - s));
}

void jsonbuf_i64(struct jsonbuf *b, int64_t v)
{
	char buf[21], *s = digits(buf + sizeof(buf), v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--s = '-';
	jsonbuf_mem(b, s, (size_t)(buf + sizeof(buf) - s));
}

void jsonbuf_us(struct jsonbuf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	char buf[26], *end = buf + sizeof(buf), *s;

	end[-3] = (char)('0' + frac / 100);
	end[-2] = (char)('0' + frac / 10 % 10);
	end[-1] = (char)('0' + frac % 10);
	end[-4] = '.';
	s = digits(end - 4, a / 1000);
	if (ns < 0)
		*--s = '-';
	jsonbuf_mem(b, s, (size_t)(buf + sizeof(buf) - s));
}

/* Runs of plain bytes are copied whole. */
void jsonbuf_escaped(struct jsonbuf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	for (;; p++) {
		unsigned c = *p;
		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		jsonbuf_mem(b, run, (size_t)(p - run));
		if (!c)
			return;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			jsonbuf_mem(b, e, 2);
		} else {
			char e[6] = { '\\', 'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15] };
			jsonbuf_mem(b, e, 6);
		}
		run = p + 1;
	}
}

void jsonbuf_string(struct jsonbuf *b, const char *s)
{
	jsonbuf_char(b, '"');
	jsonbuf_escaped(b, s);
	jsonbuf_char(b, '"');
}

void jsonbuf_printf(struct jsonbuf *b, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		jsonbuf_mem(b, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}
