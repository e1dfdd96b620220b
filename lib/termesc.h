/*
 * termesc.h - text from a database or a file name, made safe for a terminal.
 *
 * A recorded map name, source path or module path is whatever the program,
 * its compiler or a hostile database put there.  Printed as it is, the bytes
 * ESC ] 0 ; ... BEL retitle the user's terminal, ESC [ 2 J clears it, and
 * worse sequences exist.  Everything mapprof prints from data goes through
 * this escaping:
 *
 *   C0 controls, DEL       -> \n \t \r, else \xNN   (NN lowercase hex)
 *   C1 controls U+0080..9F -> \u0080 .. \u009f
 *   bidi overrides and isolates (U+202A..202E, U+2066..2069), line and
 *   paragraph separators (U+2028, U+2029)
 *                          -> \u202e ...            (text that reads in
 *                                                    another order than it is)
 *   a byte that is not part of valid UTF-8 -> \xNN  (kept, never dropped)
 *   anything else, printable ASCII and valid UTF-8 -> as it is
 *
 * With TERMESC_LINES, '\n' and '\t' pass: for a text of several lines whose
 * line structure is mapprof's own (the summary), data strings in it having
 * been escaped whole where a newline would mislead.
 *
 * lib/ includes nothing of the stages.
 */
#ifndef MAPPROF_LIB_TERMESC_H
#define MAPPROF_LIB_TERMESC_H

#include <stddef.h>
#include <stdio.h>

#define TERMESC_LINES 1u   /* '\n' and '\t' pass */

/* Room termesc() may need for n bytes of input (no terminating NUL). */
#define TERMESC_MAX(n) (4 * (n))

/*
 * Escape s[0..n) into out (room for TERMESC_MAX(n) bytes; not
 * NUL-terminated).  Returns the number of bytes written to out; *used is
 * set to the number of input bytes consumed: all of them when 'final', else
 * an incomplete UTF-8 sequence at the end is left for the next call (at
 * most 3 bytes).
 */
size_t termesc(char *out, const char *s, size_t n, unsigned flags, int final, size_t *used);

/* s (NUL-terminated; NULL: "(null)") escaped, malloc'ed; NULL when out of memory. */
char *termesc_dup(const char *s, unsigned flags);

/* Write s escaped to f.  Returns what fputs returns. */
int termesc_fputs(const char *s, FILE *f, unsigned flags);

/* A message line: the formatted text escaped whole (a newline in it too), then '\n'. */
void termesc_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
