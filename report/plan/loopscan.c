/*
 * loopscan.c - tokens, matched brackets, statements: the loop around a line.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "report/plan/loopscan.h"

#define MAX_DEPTH 256   /* statements nested deeper are given up on (no stack overflow) */

struct tok {
	char kind;   /* f(or) w(hile) d(o) i(f) e(lse) s(witch), x: other word, else the punctuation */
	int line;
	size_t at, len;   /* a word's bytes in the text (0 for other tokens) */
};

struct scan {
	struct tok *t;
	size_t n, cap;
	long *match;          /* the matching bracket's index, -1 when none */
	unsigned char *pre;   /* pre[line]: a preprocessor line */
	int nlines;
};

static int push(struct scan *s, char kind, int line)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct tok *t = realloc(s->t, cap * sizeof(*t));
		if (!t)
			return -1;
		s->t = t;
		s->cap = cap;
	}
	s->t[s->n].kind = kind;
	s->t[s->n].at = s->t[s->n].len = 0;
	s->t[s->n++].line = line;
	return 0;
}

static char word_kind(const char *w, size_t len)
{
	static const struct { const char *w; char k; } kw[] = {
		{ "for", 'f' }, { "while", 'w' }, { "do", 'd' }, { "if", 'i' }, { "else", 'e' },
		{ "switch", 's' },
	};
	for (size_t i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (strlen(kw[i].w) == len && !memcmp(kw[i].w, w, len))
			return kw[i].k;
	return 'x';
}

/* Skip a quoted literal starting at text[i] (the quote); returns the index after it. */
static size_t skip_quoted(const char *text, size_t n, size_t i, int *line)
{
	char q = text[i++];
	while (i < n && text[i] != q && text[i] != '\n') {
		if (text[i] == '\\' && i + 1 < n) {
			if (text[i + 1] == '\n')
				(*line)++;
			i++;
		}
		i++;
	}
	return i < n && text[i] == q ? i + 1 : i;
}

static int tokenize(struct scan *s, const char *text, size_t n)
{
	int line = 1, at_start = 1;
	size_t i = 0;

	for (size_t k = 0; k < n; k++)
		s->nlines += text[k] == '\n';
	s->nlines += 2;
	s->pre = calloc((size_t)s->nlines + 1, 1);
	if (!s->pre)
		return -1;
	while (i < n) {
		char c = text[i];
		if (c == '\n') {
			line++;
			at_start = 1;
			i++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
		} else if (c == '#' && at_start) {
			/* A preprocessor line, with its continuations. */
			while (i < n && text[i] != '\n') {
				if (line <= s->nlines)
					s->pre[line] = 1;
				if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') {
					line++;
					i++;
				}
				i++;
			}
		} else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
			while (i < n && text[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
			for (i += 2; i < n && !(text[i] == '*' && i + 1 < n && text[i + 1] == '/'); i++)
				line += text[i] == '\n';
			i = i < n ? i + 2 : n;
		} else if (c == '"' || c == '\'') {
			at_start = 0;
			i = skip_quoted(text, n, i, &line);
			if (push(s, 'x', line) < 0)
				return -1;
		} else if (isalnum((unsigned char)c) || c == '_') {
			size_t b = i;
			while (i < n && (isalnum((unsigned char)text[i]) || text[i] == '_' ||
					 (text[i] == '\'' && i + 1 < n && isalnum((unsigned char)text[i + 1]) &&
					  isdigit((unsigned char)text[b]))))
				i++;
			at_start = 0;
			if (push(s, isdigit((unsigned char)c) ? 'x' : word_kind(text + b, i - b), line) < 0)
				return -1;
			s->t[s->n - 1].at = b;
			s->t[s->n - 1].len = i - b;
		} else {
			at_start = 0;
			if (push(s, strchr("(){}[];", c) ? c : 'x', line) < 0)
				return -1;
			i++;
		}
	}
	return 0;
}

static int match_brackets(struct scan *s)
{
	long *stack = malloc((s->n ? s->n : 1) * sizeof(*stack));
	size_t top = 0;

	s->match = malloc((s->n ? s->n : 1) * sizeof(*s->match));
	if (!stack || !s->match) {
		free(stack);
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		char k = s->t[i].kind;
		s->match[i] = -1;
		if (k == '(' || k == '{' || k == '[') {
			stack[top++] = (long)i;
		} else if (k == ')' || k == '}' || k == ']') {
			char open = k == ')' ? '(' : k == '}' ? '{' : '[';
			if (top && s->t[stack[top - 1]].kind == open) {
				s->match[i] = stack[top - 1];
				s->match[stack[--top]] = (long)i;
			}
		}
	}
	free(stack);
	return 0;
}

static char kind_at(const struct scan *s, long i)
{
	return i >= 0 && (size_t)i < s->n ? s->t[i].kind : 0;
}

/* The index of the last token of the statement starting at token i; -1 when unsure. */
static long stmt_end(const struct scan *s, long i, int depth)
{
	long j, e;

	if (depth > MAX_DEPTH || i < 0 || (size_t)i >= s->n)
		return -1;
	switch (s->t[i].kind) {
	case '{':
		return s->match[i];
	case ';':
		return i;
	case 'f':
	case 'w':
	case 's':
	case 'i':
		if (kind_at(s, i + 1) != '(' || (j = s->match[i + 1]) < 0)
			return -1;
		e = stmt_end(s, j + 1, depth + 1);
		if (s->t[i].kind == 'i' && e >= 0 && kind_at(s, e + 1) == 'e')
			return stmt_end(s, e + 2, depth + 1);
		return e;
	case 'd':
		e = stmt_end(s, i + 1, depth + 1);
		if (e < 0 || kind_at(s, e + 1) != 'w' || kind_at(s, e + 2) != '(' ||
		    (j = s->match[e + 2]) < 0 || kind_at(s, j + 1) != ';')
			return -1;
		return j + 1;
	default:
		for (j = i; (size_t)j < s->n; j++) {
			char k = s->t[j].kind;
			if (k == '(' || k == '[' || k == '{') {
				if (s->match[j] < 0)
					return -1;
				j = s->match[j];
			} else if (k == ';') {
				return j;
			} else if (k == ')' || k == ']' || k == '}') {
				return -1;
			}
		}
		return -1;
	}
}

/*
 * 1 when lines first..last of text hold the word 'return', 'goto',
 * 'longjmp' or 'siglongjmp' outside comments and literals.
 */
static int leaves_early(const char *text, size_t n, int first, int last)
{
	static const char *const words[] = { "return", "goto", "longjmp", "siglongjmp" };
	int line = 1;
	size_t i = 0;

	while (i < n && line < first)
		if (text[i++] == '\n')
			line++;
	while (i < n && line <= last) {
		char c = text[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
			while (i < n && text[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
			for (i += 2; i + 1 < n && !(text[i] == '*' && text[i + 1] == '/'); i++)
				line += text[i] == '\n';
			i += 2;
		} else if (c == '"' || c == '\'') {
			i = skip_quoted(text, n, i, &line);
		} else if (isalpha((unsigned char)c) || c == '_') {
			size_t b = i;
			while (i < n && (isalnum((unsigned char)text[i]) || text[i] == '_'))
				i++;
			for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
				if (strlen(words[k]) == i - b && !memcmp(words[k], text + b, i - b))
					return 1;
		} else {
			i++;
		}
	}
	return 0;
}

/* Line 'line' (1-based) of text: its bytes [*b, *e), the newline left out. */
static void line_span(const char *text, size_t n, int line, size_t *b, size_t *e)
{
	size_t i = 0;

	for (int l = 1; l < line && i < n; i++)
		l += text[i] == '\n';
	*b = i;
	while (i < n && text[i] != '\n')
		i++;
	*e = i;
}

/* Whether text[i..end) starts with the word w (nothing alphanumeric right after it). */
static int word_at(const char *text, size_t i, size_t end, const char *w)
{
	size_t len = strlen(w);

	return end - i >= len && !memcmp(text + i, w, len) && (end - i == len || !isalnum((unsigned char)text[i + len]));
}

/*
 * Line 'line' of text as a preprocessor line: 1 with *i at its directive
 * (past the '#' and blanks) and *end at the line's end; 0 for any other
 * line, and for one continued on the next ('\\' at its end).
 */
static int preproc_line(const char *text, size_t n, int line, size_t *i, size_t *end)
{
	line_span(text, n, line, i, end);
	if (*end > *i && text[*end - 1] == '\\')
		return 0;
	while (*i < *end && isblank((unsigned char)text[*i]))
		(*i)++;
	if (*i == *end || text[(*i)++] != '#')
		return 0;
	while (*i < *end && isblank((unsigned char)text[*i]))
		(*i)++;
	return 1;
}

/*
 * Whether line 'line' of text is a loop hint, a pragma that belongs to the
 * loop after it ('#pragma clang loop ...', '#pragma unroll', '#pragma
 * nounroll', '#pragma GCC unroll', '#pragma GCC ivdep'), on one line: a
 * region put around the loop goes above it.
 */
static int loop_hint(const char *text, size_t n, int line)
{
	static const char *const hints[] = { "clang loop", "unroll", "nounroll", "GCC unroll", "GCC ivdep" };
	size_t i, end;

	if (!preproc_line(text, n, line, &i, &end) || !word_at(text, i, end, "pragma"))
		return 0;
	for (i += 6; i < end && isblank((unsigned char)text[i]); i++)
		;
	for (size_t k = 0; k < sizeof(hints) / sizeof(hints[0]); k++)
		if (word_at(text, i, end, hints[k]))
			return 1;
	return 0;
}

/*
 * Whether line 'line' is an '#endif': what it closes ends before the loop,
 * which a region can then go around ('#ifdef X' ... '#endif' right above a
 * loop, as the benchmarks write their fixed variants).
 */
static int is_endif(const char *text, size_t n, int line)
{
	size_t i, end;

	return preproc_line(text, n, line, &i, &end) && word_at(text, i, end, "endif");
}

/* The line before 'line' that is not blank or a '//' comment alone (0: none). */
static int prev_code_line(const char *text, size_t n, int line)
{
	while (--line > 0) {
		size_t i, end;
		line_span(text, n, line, &i, &end);
		while (i < end && isspace((unsigned char)text[i]))
			i++;
		if (i < end && !(end - i >= 2 && text[i] == '/' && text[i + 1] == '/'))
			return line;
	}
	return 0;
}

static int find_loop(const char *text, size_t n, int line, int or_on, struct loop_span *out)
{
	struct scan s = { 0 };
	long best = -1, best_end = -1, tail = -1;

	if (!text || line <= 0 || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0)
		goto out;
	for (size_t i = 0; i < s.n && s.t[i].line < line; i++) {
		char k = s.t[i].kind;
		long e;
		if (k != 'f' && k != 'w' && k != 'd')
			continue;
		if ((long)i == tail)
			continue;   /* the 'while' of a do ... while */
		if (k == 'd' && (e = stmt_end(&s, (long)i + 1, 0)) >= 0 && kind_at(&s, e + 1) == 'w')
			tail = e + 1;
		e = stmt_end(&s, (long)i, 0);
		if (e >= 0 && (s.t[e].line > line || (or_on && s.t[e].line == line))) {
			best = (long)i;
			best_end = e;
		}
	}
	if (best >= 0) {
		int first = s.t[best].line, last = s.t[best_end].line, p;
		out->first_line = first;
		out->last_line = last;
		out->alone = (best == 0 || s.t[best - 1].line != first) &&
			     ((size_t)best_end + 1 >= s.n || s.t[best_end + 1].line != last);
		/* Loop hints above it, even past blank or comment lines, go with it. */
		while ((p = prev_code_line(text, n, first)) > 0 && p <= s.nlines && s.pre[p] && loop_hint(text, n, p))
			out->first_line = first = p;
		out->pragma_before = p > 0 && p <= s.nlines && s.pre[p] && !is_endif(text, n, p);
		out->leaves = leaves_early(text, n, first, last);
	}
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return best >= 0;
}

int loopscan_find(const char *text, size_t n, int line, struct loop_span *out)
{
	return find_loop(text, n, line, 0, out);
}

int loopscan_find_call(const char *text, size_t n, int line, struct loop_span *out)
{
	return find_loop(text, n, line, 1, out);
}

int loopscan_statement(const char *text, size_t n, int pragma_line, struct stmt_span *out)
{
	struct scan s = { 0 };
	size_t i;
	long e;
	int found = 0;

	if (!text || pragma_line <= 0 || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0)
		goto out;
	for (i = 0; i < s.n && s.t[i].line <= pragma_line; i++)
		;
	if (i == s.n || (e = stmt_end(&s, (long)i, 0)) < 0)
		goto out;
	out->first_line = s.t[i].line;
	out->last_line = s.t[e].line;
	out->alone_after = (size_t)e + 1 >= s.n || s.t[e + 1].line != out->last_line;
	out->in_block = i == 0 || strchr(";{}", s.t[i - 1].kind);
	found = 1;
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return found;
}

int loopscan_function(const char *text, size_t n, int line, int *first, int *last)
{
	struct scan s = { 0 };
	long depth = 0, start = 0;
	int found = 0;

	if (!text || line <= 0 || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0)
		goto out;
	for (size_t i = 0; i < s.n && !found; i++) {
		char k = s.t[i].kind;
		if (depth == 0 && k == '{' && s.match[i] > (long)i) {
			long e = s.match[i];
			if (s.t[i].line <= line && s.t[e].line >= line) {
				*first = s.t[start].line;
				*last = s.t[e].line;
				found = 1;
			}
			i = (size_t)e;   /* past the body: the next definition starts after it */
			start = e + 1;
			continue;
		}
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if ((k == ')' || k == ']' || k == '}') && depth > 0)
			depth--;
		if (depth == 0 && (k == ';' || k == '}'))
			start = (long)i + 1;
	}
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return found;
}

int loopscan_file_scope(const char *text, size_t n, const char *id, size_t idl, int before)
{
	struct scan s = { 0 };
	long depth = 0;
	int found = 0;

	if (!text || !idl || tokenize(&s, text, n) < 0)
		goto out;
	for (size_t i = 0; i < s.n && s.t[i].line < before && !found; i++) {
		char k = s.t[i].kind;
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if ((k == ')' || k == ']' || k == '}') && depth > 0)
			depth--;
		else if (depth == 0 && s.t[i].len == idl && !memcmp(text + s.t[i].at, id, idl) &&
			 kind_at(&s, (long)i + 1) != '(')
			found = 1;
	}
out:
	free(s.t);
	free(s.pre);
	return found;
}

/* The body of the function named by the word token at i (its definition in text): first/last token, or -1. */
static long definition_of(const struct scan *s, const char *text, size_t at, size_t len, long *last)
{
	long depth = 0;

	for (size_t i = 0; i + 1 < s->n; i++) {
		char k = s->t[i].kind;
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if ((k == ')' || k == ']' || k == '}') && depth > 0)
			depth--;
		else if (depth == 0 && s->t[i].len == len && !memcmp(text + s->t[i].at, text + at, len) &&
			 s->t[i + 1].kind == '(' && s->match[i + 1] > 0 && kind_at(s, s->match[i + 1] + 1) == '{') {
			long open = s->match[i + 1] + 1;
			if (s->match[open] < 0)
				return -1;
			*last = s->match[open];
			return open;
		}
	}
	return -1;
}

static int names_in(const struct scan *s, const char *text, long from, long to, const char *id, size_t idl)
{
	for (long i = from; i <= to && i >= 0 && (size_t)i < s->n; i++)
		if (s->t[i].len == idl && !memcmp(text + s->t[i].at, id, idl))
			return 1;
	return 0;
}

int loopscan_mentions(const char *text, size_t n, int first, int last, const char *id, size_t idl)
{
	struct scan s = { 0 };
	int found = 0;

	if (!text || !idl || first > last)
		return 0;
	if (tokenize(&s, text, n) < 0 || match_brackets(&s) < 0) {
		found = 1;   /* unsure: say it is named */
		goto out;
	}
	for (size_t i = 0; i < s.n && !found; i++) {
		long body, end;
		if (s.t[i].line < first || s.t[i].line > last)
			continue;
		if (s.t[i].len == idl && !memcmp(text + s.t[i].at, id, idl))
			found = 1;
		else if (s.t[i].kind == 'x' && s.t[i].len && kind_at(&s, (long)i + 1) == '(' &&
			 !(s.match[i + 1] > 0 && kind_at(&s, s.match[i + 1] + 1) == '{') &&   /* not a definition */
			 (body = definition_of(&s, text, s.t[i].at, s.t[i].len, &end)) >= 0)
			found = names_in(&s, text, body, end, id, idl);   /* a call: its body, one level */
	}
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return found;
}
