/*
 * snippet.h - a few source lines around a location, read at report time so
 * that the database (and the HTML made from it) carries them to machines
 * that do not have the sources.
 *
 * Reading is careful about what a recorded path can point at: only regular
 * files of at most SAFEFILE_MAX_SOURCE_BYTES, opened without blocking
 * (report/attribute/safefile.h), no binary content (a NUL byte stops it), long lines
 * cut.  Whether a file may be quoted at all is report/attribute/attribute.c's call
 * (docs/attribution.md, "Snippets").
 */
#ifndef MAPPROF_REPORT_SNIPPET_H
#define MAPPROF_REPORT_SNIPPET_H

#include <stddef.h>
#include <stdint.h>

#define SNIPPET_CONTEXT 4          /* lines either side of the line of interest */
#define SNIPPET_MAX_LINE_BYTES 400 /* longer lines are cut and end in "..." */

/*
 * Find 'file' on this machine: as is when absolute, else joined to each of
 * 'dirs' in order (NULL entries skipped).  Returns the malloc'ed path of the
 * first regular file that is readable, or NULL.
 */
char *snippet_resolve(const char *file, const char *const *dirs, size_t n_dirs);

/*
 * Lines [line - context, line + context] of the file at 'path' (clamped to
 * the file), joined with '\n' (no trailing newline), malloc'ed; *first_line
 * is the number of the first one.  NULL when the file is unreadable, is not
 * text, or has fewer than 'line' lines (it changed since it was compiled).
 */
char *snippet_read(const char *path, int line, int context, int *first_line);

/*
 * The size of the file at 'path' and the XXH3-64 of its bytes as 16
 * lower-case hex digits (hash[16] is the NUL): what 'mapprof record' stores
 * for each source file (db/store/source_files.h) and 'report' compares with the
 * file it would quote.  Read as snippet_read() reads (a regular file of at
 * most SAFEFILE_MAX_SOURCE_BYTES).  0, or -1 when it cannot be read.
 */
int snippet_hash(const char *path, int64_t *bytes, char hash[17]);

/*
 * The directive at 'line' of the file at 'path', its continuation lines
 * ('\\' at the end) joined by blanks; malloc'ed, NULL when it cannot be
 * read (as snippet_read).
 */
char *snippet_directive(const char *path, int line);

/*
 * How the source spells the map list item clang recorded as 'name' (its
 * macros expanded: "f[0:64 * 64]" for the source's "f[0:NX*NY]") on the
 * directive text 'directive': the one item there with the same variable
 * and members ("s.v" of "s.v[0:N]", blanks aside) and as many sections.
 * malloc'ed; NULL when 'name' is a plain variable, no item or two
 * different ones match (a variable mapped in two parts), or out of memory.
 */
char *snippet_map_spelling(const char *directive, const char *name);

/*
 * The destination and source arguments of the omp_target_memcpy call on the
 * source line 'text', as written ("d", "h" of 'omp_target_memcpy(d, h, n,
 * 0, 0, dev, host)'), malloc'ed into *dst and *src: 1; 0 when the line has
 * no such call; -1 when out of memory.
 */
int snippet_memcpy_args(const char *text, char **dst, char **src);

#endif
