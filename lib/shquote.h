/*
 * shquote.h - a path quoted for a POSIX shell, for the commands hints print.
 *
 * A hint such as "recover it with: mapprof recover PATH" is meant to be
 * pasted into a shell.  The path comes from the user or from a database and
 * may hold anything a file name can: spaces, ';', '$(...)', quotes.  Quoted
 * here, the shell reads it back as the one word it is and runs nothing in
 * it:
 *
 *   only [A-Za-z0-9_./:@%+=,-]     -> as it is         run.db
 *   anything else                  -> in single quotes 'a b;$(id).db'
 *   a single quote inside          -> '\''             'it'\''s.db'
 *   empty                          -> ''
 *   a leading '-' (read as an option) -> after "./"    ./-x.db
 *
 * Control characters stay inside the quotes as they are: the message that
 * prints the hint escapes them for the terminal (lib/termesc.h), so such a
 * path is shown safely but cannot be pasted back exactly.
 *
 * Header-only and free of malloc: the collector, in the profiled program,
 * may use it as well as the CLI.
 */
#ifndef MAPPROF_LIB_SHQUOTE_H
#define MAPPROF_LIB_SHQUOTE_H

#include <stddef.h>
#include <string.h>

static inline int shquote_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_./:@%+=,-", c));
}

/*
 * Write 's' quoted as above into dst (at most cap bytes, always
 * NUL-terminated when cap > 0).  Returns the length of the whole quoted
 * text, as snprintf does: dst holds all of it when that is below cap.
 */
static inline size_t shquote(char *dst, size_t cap, const char *s)
{
	size_t n = 0, last = cap ? cap - 1 : 0;   /* room for the NUL */
	int plain = *s != 0;

#define SHQUOTE_PUT(c) do { if (n < last) dst[n] = (c); n++; } while (0)
	for (const char *p = s; *p && plain; p++)
		plain = shquote_plain((unsigned char)*p);
	if (*s == '-') {
		SHQUOTE_PUT('.');
		SHQUOTE_PUT('/');
	}
	if (!plain)
		SHQUOTE_PUT('\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'' && !plain) {
			SHQUOTE_PUT('\'');
			SHQUOTE_PUT('\\');
			SHQUOTE_PUT('\'');
			SHQUOTE_PUT('\'');
		} else {
			SHQUOTE_PUT(*p);
		}
	}
	if (!plain)
		SHQUOTE_PUT('\'');
#undef SHQUOTE_PUT
	if (cap)
		dst[n < last ? n : last] = 0;
	return n;
}

#endif
