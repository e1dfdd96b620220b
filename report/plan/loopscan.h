/*
 * loopscan.h - the loop around a directive, found in C/C++ source text.
 *
 * A fix plan for a construct repeated by a loop says where a 'target data'
 * region should begin and end: the innermost for/while/do statement whose
 * body holds the directive's line.  This is a heuristic scan of tokens, not
 * a parser: comments, string and character literals and preprocessor lines
 * (the #pragma lines themselves) are skipped, parentheses and braces are
 * matched, a body is a braced block or a single statement (itself possibly
 * a loop, an if/else or a do/while).  Its limits: macros are not expanded (a
 * loop written by a macro, or braces inside one, is not seen), the file is
 * scanned as it is now (it may have changed since it was compiled), and a
 * loop in a caller (a construct inside a function called from a loop) is
 * not found: only the loops of the directive's own function.
 */
#ifndef MAPPROF_REPORT_LOOPSCAN_H
#define MAPPROF_REPORT_LOOPSCAN_H

#include <stddef.h>

struct loop_span {
	int first_line;      /* the line of its 'for', 'while' or 'do' */
	int last_line;       /* the line where its body (or do's 'while (...);') ends */
	int alone;           /* nothing else on those two lines: lines can go around it */
	int pragma_before;   /* the line before it is a preprocessor line (a pragma of its own) */
};

/*
 * Find the innermost loop of 'text' (n bytes) around 'line' (1-based): a loop
 * starting before the line whose statement ends after it.  1 when found
 * (*out set), 0 when none.
 */
int loopscan_find(const char *text, size_t n, int line, struct loop_span *out);

#endif
