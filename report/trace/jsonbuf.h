/*
 * jsonbuf.h - JSON text built in a buffer of its own and handed to stdio
 * in pieces of JSONBUF_SIZE, for outputs of millions of values (the Trace
 * Event file of report/trace/trace_emit.h): putc and fprintf per field
 * were half of a 1 M-event trace's time (issue 27), so numbers are written
 * without printf too.  The writer does not check the stream: its errors
 * show in ferror() of the FILE, as stdio's own do.
 *
 * The appends that every value goes through are inline here; the rest is
 * in jsonbuf.c.
 */
#ifndef MAPPROF_REPORT_JSONBUF_H
#define MAPPROF_REPORT_JSONBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define JSONBUF_SIZE (256 * 1024)

struct jsonbuf {
	FILE *f;                  /* borrowed */
	char *out;                /* what is not handed to stdio yet */
	size_t n;
};

/* A writer onto 'f' (borrowed).  0, or -1 out of memory. */
int jsonbuf_init(struct jsonbuf *b, FILE *f);

/* Frees the buffer without writing what it holds (jsonbuf_flush() first to keep it). */
void jsonbuf_release(struct jsonbuf *b);

/* Hand what the buffer holds to stdio. */
void jsonbuf_flush(struct jsonbuf *b);

/* Room for n <= JSONBUF_SIZE bytes at b->out + b->n. */
static inline char *jsonbuf_room(struct jsonbuf *b, size_t n)
{
	if (b->n + n > JSONBUF_SIZE)
		jsonbuf_flush(b);
	return b->out + b->n;
}

/* n raw bytes (JSON text already). */
static inline void jsonbuf_mem(struct jsonbuf *b, const void *s, size_t n)
{
	if (n > JSONBUF_SIZE) {
		jsonbuf_flush(b);
		fwrite(s, 1, n, b->f);
		return;
	}
	memcpy(jsonbuf_room(b, n), s, n);
	b->n += n;
}

/* A string literal, raw. */
#define jsonbuf_lit(b, s) jsonbuf_mem((b), (s), sizeof(s) - 1)

static inline void jsonbuf_char(struct jsonbuf *b, char c)
{
	*jsonbuf_room(b, 1) = c;
	b->n++;
}

/* A number as printf's %llu and %lld write it. */
void jsonbuf_u64(struct jsonbuf *b, uint64_t v);
void jsonbuf_i64(struct jsonbuf *b, int64_t v);

/* Nanoseconds as microseconds with nanosecond precision, a JSON number ("-1.005": -1005 ns). */
void jsonbuf_us(struct jsonbuf *b, int64_t ns);

/* 's' escaped for a JSON string, without the quotes. */
void jsonbuf_escaped(struct jsonbuf *b, const char *s);

/* 's' as a JSON string. */
void jsonbuf_string(struct jsonbuf *b, const char *s);

/* printf's output, cut at 255 bytes (for rare lines, where printf costs nothing that shows). */
void jsonbuf_printf(struct jsonbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
