/*
 * snippet.c - reading source lines around a location.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/attribute/safefile.h"
#include "report/attribute/snippet.h"

/* XXH3-64 from libxxhash's header, compiled in (as the collector does). */
#define XXH_INLINE_ALL
#include <xxhash.h>

static int readable_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

char *snippet_resolve(const char *file, const char *const *dirs, size_t n_dirs)
{
	if (!file || !*file)
		return NULL;
	if (file[0] == '/')
		return readable_file(file) ? strdup(file) : NULL;
	for (size_t i = 0; i < n_dirs; i++) {
		char *path;
		if (!dirs[i] || !*dirs[i])
			continue;
		if (asprintf(&path, "%s/%s", dirs[i], file) < 0)
			return NULL;
		if (readable_file(path))
			return path;
		free(path);
	}
	return NULL;
}

/* Append n bytes of s to the growing buffer; -1 when out of memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		size_t want = *cap ? *cap * 2 : 256;
		while (want < *len + n + 1)
			want *= 2;
		char *p = realloc(*buf, want);
		if (!p)
			return -1;
		*buf = p;
		*cap = want;
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
	return 0;
}

char *snippet_read(const char *path, int line, int context, int *first_line)
{
	FILE *f;
	int fd;
	char *text = NULL, *buf = NULL;
	size_t len = 0, cap = 0, bufcap = 0;
	ssize_t got;
	int first, last, no = 0, ok = 1;

	if (!path || line <= 0 || context < 0 || line > INT_MAX - context)
		return NULL;
	first = line > context ? line - context : 1;
	last = line + context;
	fd = safefile_open(path, SAFEFILE_MAX_SOURCE_BYTES, NULL);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return NULL;
	}
	while (ok && no < last && (got = getline(&buf, &bufcap, f)) >= 0) {
		size_t n = (size_t)got;
		no++;
		if (memchr(buf, '\0', n)) {
			ok = 0;   /* not a text file */
			break;
		}
		if (no < first)
			continue;
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		if (no > first && append(&text, &len, &cap, "\n", 1) < 0)
			ok = 0;
		if (n > SNIPPET_MAX_LINE_BYTES) {
			if (append(&text, &len, &cap, buf, SNIPPET_MAX_LINE_BYTES) < 0 ||
			    append(&text, &len, &cap, "...", 3) < 0)
				ok = 0;
		} else if (append(&text, &len, &cap, buf, n) < 0) {
			ok = 0;
		}
	}
	free(buf);
	fclose(f);
	if (!ok || no < line) {
		free(text);
		return NULL;
	}
	if (!text)   /* the line of interest was an empty last line */
		text = strdup("");
	*first_line = first;
	return text;
}

int snippet_hash(const char *path, int64_t *bytes, char hash[17])
{
	static const char hex[] = "0123456789abcdef";
	XXH3_state_t st;
	char buf[65536];
	int64_t total = 0;
	uint64_t h;
	ssize_t got;
	int fd = safefile_open(path, SAFEFILE_MAX_SOURCE_BYTES, NULL);

	if (fd < 0)
		return -1;
	XXH3_64bits_reset(&st);
	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		XXH3_64bits_update(&st, buf, (size_t)got);
		total += got;
		if ((uint64_t)total > SAFEFILE_MAX_SOURCE_BYTES) {
			got = -1;   /* it grew past the limit since it was opened */
			break;
		}
	}
	close(fd);
	if (got < 0)
		return -1;
	h = XXH3_64bits_digest(&st);
	for (int i = 15; i >= 0; i--, h >>= 4)
		hash[i] = hex[h & 15];
	hash[16] = '\0';
	*bytes = total;
	return 0;
}

char *snippet_directive(const char *path, int line)
{
	int first;
	char *text = snippet_read(path, line, 8, &first), *p, *out, *o;

	if (!text)
		return NULL;
	/* Skip to 'line', then join it and its continuation lines. */
	p = text;
	for (int k = first; k < line && p; k++)
		if ((p = strchr(p, '\n')))
			p++;
	if (!p || !(out = malloc(strlen(p) + 1))) {
		free(text);
		return NULL;
	}
	o = out;
	for (;;) {
		char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		int more = n > 0 && p[n - 1] == '\\';
		memcpy(o, p, more ? n - 1 : n);
		o += more ? n - 1 : n;
		if (!more || !nl)
			break;
		*o++ = ' ';
		p = nl + 1;
	}
	*o = '\0';
	free(text);
	return out;
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The end of the list item or argument at p: the ',' or ')' outside brackets and parentheses (or the end). */
static const char *item_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '[' || *p == '(')
			depth++;
		else if ((*p == ']' || *p == ')') && depth > 0)
			depth--;
		else if (depth == 0 && (*p == ',' || *p == ')'))
			break;
	}
	return p;
}

/* 's' up to its first '[' (the variable and its members), blanks dropped, into out. */
static void spelling_path(const char *s, size_t n, char *out, size_t size)
{
	size_t k = 0;
	for (size_t i = 0; i < n && s[i] != '[' && k + 1 < size; i++)
		if (s[i] != ' ' && s[i] != '\t')
			out[k++] = s[i];
	out[k] = '\0';
}

static size_t count_char(const char *s, size_t n, char c)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

char *snippet_map_spelling(const char *directive, const char *name)
{
	char want[256], got[256], *found = NULL;
	size_t base = 0, nname;
	int ambiguous = 0;

	if (!directive || !name)
		return NULL;
	nname = strlen(name);
	while (ident_char(name[base]))
		base++;
	/* A plain variable is spelled as recorded; only sections and members differ. */
	if (!base || base == nname || nname >= sizeof(want))
		return NULL;
	spelling_path(name, nname, want, sizeof(want));
	for (const char *p = directive; *p; p++) {
		size_t n;
		if (strncmp(p, name, base) || ident_char(p[base]) || (p > directive && ident_char(p[-1])))
			continue;
		/* The list item. */
		n = (size_t)(item_end(p) - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n && n < sizeof(got)) {
			spelling_path(p, n, got, sizeof(got));
			if (!strcmp(got, want) && count_char(p, n, '[') == count_char(name, nname, '[')) {
				if (!found)
					found = strndup(p, n);
				else if (strlen(found) != n || strncmp(found, p, n))
					ambiguous = 1;   /* two sections of one variable: which is which? */
			}
		}
		if (n)
			p += n - 1;
	}
	if (ambiguous) {
		free(found);
		return NULL;
	}
	return found;
}

/* The argument at 'p' (after '(' or ','): up to ',' or ')' outside brackets, blanks trimmed. */
static const char *call_arg(const char *p, const char **end)
{
	while (*p == ' ' || *p == '\t')
		p++;
	*end = item_end(p);
	return p;
}

int snippet_memcpy_args(const char *text, char **dst, char **src)
{
	static const char fn[] = "omp_target_memcpy";
	const char *p = text, *a, *ae, *b, *be;

	*dst = *src = NULL;
	while (p && (p = strstr(p, fn))) {
		const char *q = p + sizeof(fn) - 1;
		if ((p > text && ident_char(p[-1])) || ident_char(*q)) {
			p = q;   /* omp_target_memcpy_rect, _async: other arguments */
			continue;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q != '(')
			return 0;
		a = call_arg(q + 1, &ae);
		if (*ae != ',')
			return 0;
		b = call_arg(ae + 1, &be);
		if (*be != ',')
			return 0;
		while (ae > a && (ae[-1] == ' ' || ae[-1] == '\t'))
			ae--;
		while (be > b && (be[-1] == ' ' || be[-1] == '\t'))
			be--;
		if (ae == a || be == b)
			return 0;
		if (!(*dst = strndup(a, (size_t)(ae - a))) || !(*src = strndup(b, (size_t)(be - b)))) {
			free(*dst);
			*dst = NULL;
			return -1;
		}
		return 1;
	}
	return 0;
}
