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
 * found only from the call's line (loopscan_find_call(): the plans take it
 * from the directive's inline chain).
 */
#ifndef MAPPROF_REPORT_LOOPSCAN_H
#define MAPPROF_REPORT_LOOPSCAN_H

#include <stddef.h>

struct loop_span {
	int first_line;      /* the line of its 'for', 'while' or 'do', or of the loop
				hints just above it ('#pragma clang loop', 'unroll', ...) */
	int last_line;       /* the line where its body (or do's 'while (...);') ends */
	int alone;           /* nothing else on those two lines: lines can go around it */
	int pragma_before;   /* the line before it (past blank and '//' lines) is a preprocessor
				line (a pragma of its own), but an '#endif' */
	int leaves;          /* its lines hold 'return', 'goto' or a longjmp: control may leave it
				other than at its end, which a region around it may not allow */
};

/*
 * Find the innermost loop of 'text' (n bytes) around 'line' (1-based): a loop
 * starting before the line whose statement ends after it.  1 when found
 * (*out set), 0 when none.
 */
int loopscan_find(const char *text, size_t n, int line, struct loop_span *out);

/*
 * The same for a statement on 'line' (a call): a loop starting before the
 * line whose statement ends on it or after it (an unbraced body on it).
 */
int loopscan_find_call(const char *text, size_t n, int line, struct loop_span *out);

/* The statement a directive applies to (loopscan_statement()). */
struct stmt_span {
	int first_line;      /* its first token's line */
	int last_line;       /* its last token's line */
	int alone_after;     /* nothing follows it on its last line: a line can go after it */
	int in_block;        /* it follows ';', '{' or '}' (or nothing): a directive can go
				before it, it is not the unbraced body of an if, else or loop */
};

/*
 * The statement after the preprocessor line(s) ending at or after
 * 'pragma_line' (the structured block of '#pragma omp target ...'): 1 when
 * found (*out set), 0 when none or unsure.
 */
int loopscan_statement(const char *text, size_t n, int pragma_line, struct stmt_span *out);

/*
 * Whether the statement after the preprocessor line(s) ending at
 * 'pragma_last' (a construct) runs at every pass of the loop that starts on
 * line 'loop_first' (or after it: its hints above it), the first pass
 * included: it is the loop's body, or a statement directly in the body's
 * block with no 'continue', 'break', 'goto', 'return', 'case' or longjmp
 * before it in the body.  1 when so; 0 when not, or unsure (an if's or an
 * inner loop's body, a label).
 */
int loopscan_every_pass(const char *text, size_t n, int loop_first, int pragma_last);

/*
 * The function whose body holds 'line': *first the line where its
 * definition begins (the first token after the top-level ';' or '}' before
 * it: return type, name, parameters), *last the line of its closing brace.
 * 1 when found, 0 when the line is in no top-level braced block.
 */
int loopscan_function(const char *text, size_t n, int line, int *first, int *last);

/*
 * Whether identifier id (idl bytes) is named at file scope before line
 * 'before': outside every brace, bracket and parenthesis, not followed by
 * '(' (a function's name).  A file-scope name a function uses without
 * declaring it is a global the function's callers can name too.
 */
int loopscan_file_scope(const char *text, size_t n, const char *id, size_t idl, int before);

/* What the host may do to a file-scope name (loopscan_host_writes()). */
enum {
	LS_CONTENT = 1,    /* write its content, or reach it by another name */
	LS_IDENTITY = 2,   /* assign the name itself (a pointer, a size) */
};

/*
 * What the code on lines first[k]..last[k] (k < nranges), and every function
 * defined in text that it calls (all levels, every definition of a name),
 * may do to the file-scope name id: LS_* flags, 0 when it only reads it.
 * Calls of skip (skipl bytes; NULL: none) are not followed.  A scan of
 * words, conservative: a call of a function not defined in text (but a few
 * of the C library's that write nothing of the caller's), a macro that names
 * id, a use of it that is not plainly a read (passed on, its address taken,
 * a member), or a way to it kept anywhere else in the file (an initializer,
 * 'p = x') counts as LS_CONTENT.
 */
int loopscan_host_writes(const char *text, size_t n, const int *first, const int *last, int nranges,
			 const char *skip, size_t skipl, const char *id, size_t idl);

/*
 * What the statement after the preprocessor line(s) ending at 'pragma_last'
 * (a kernel's structured block, run on the device) may do to id, as
 * loopscan_host_writes() tells it, the functions it calls followed, but
 * no other name of it (a pointer the host set: the kernel's are the
 * device's): LS_* flags, 0 when it only reads id; LS_CONTENT when no
 * statement is found.
 */
int loopscan_kernel_writes(const char *text, size_t n, int pragma_last, const char *id, size_t idl);

/*
 * Whether a declaration on lines first..last may declare id: a statement (or
 * a parameter, or a for's first clause) that starts 'type name' or 'type
 * *name' and names id before its end, its initializers' braces aside.  Errs
 * towards "declares" ('a * b;' counts).
 */
int loopscan_declares(const char *text, size_t n, int first, int last, const char *id, size_t idl);

#endif
