/*
 * text.h - the collector's words: its one-line messages on stderr and the
 * JSON strings it builds for the spool.
 *
 * A leaf: every file of the collector may use it, and it uses none of them.
 * Messages go to stderr only ("mapprof-collector: ..."), never to stdout,
 * which is the program's.
 */
#ifndef MAPPROF_COLLECTOR_TEXT_H
#define MAPPROF_COLLECTOR_TEXT_H

#include <stddef.h>

/* The longest message clog_msg() prints whole (before escaping); longer ones are cut. */
#define CLOG_LINE_MAX 4096

/*
 * "mapprof-collector: ..." on stderr, one line that another thread's
 * message cannot cut into; control characters and the like escaped
 * (lib/termesc.h).  No heap.
 */
void clog_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Memory the collector keeps to the end of the run, from mappings of its
 * own, never from the program's heap: a block taken from malloc while the
 * runtime allocates its device buffers changes where those land and
 * whether glibc returns them to the system, which changed a program's page
 * faults a hundredfold (stream.naive of bench/real: 1.2 M against 11 k).
 * Zeroed; never freed.  NULL when out of memory.
 */
void *text_alloc(size_t n);
/* A copy of s in text_alloc() memory. */
char *text_strdup(const char *s);

/* A growing string in text_alloc() memory (kept to the end of the run), NUL-terminated. */
struct sbuf {
	char *p;
	size_t len, cap;
};
/* Append s[0..n); on a failed growth the string stays as it was. */
void sb_put(struct sbuf *b, const char *s, size_t n);
/* Append s[0..n) as a JSON string literal. */
void sb_json_str(struct sbuf *b, const char *s, size_t n);

/* The escaped form of byte c inside a JSON string (at most 6 bytes) in esc; its length. */
size_t json_escape(unsigned char c, char esc[8]);

#endif
