/*
 * loopscan.c - tokens, matched brackets, statements: the loop around a line.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/plan/loopscan.h"

#define MAX_DEPTH 256   /* statements nested deeper are given up on (no stack overflow) */

struct tok {
	char kind;   /* f(or) w(hile) d(o) i(f) e(lse) s(witch), x: other word, else the punctuation */
	int line;
	size_t at, len;   /* its first byte in the text; a word's length (0 for other tokens) */
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
			size_t b = i;
			at_start = 0;
			i = skip_quoted(text, n, i, &line);
			if (push(s, 'x', line) < 0)
				return -1;
			s->t[s->n - 1].at = b;
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
			s->t[s->n - 1].at = i;   /* (len 0: punctuation, text[at] its character) */
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

/*
 * --- what the host may do to a file-scope name ------------------------------
 */

static int tok_is(const struct scan *s, const char *text, long i, const char *w)
{
	return i >= 0 && (size_t)i < s->n && s->t[i].len == strlen(w) && !memcmp(text + s->t[i].at, w, s->t[i].len);
}

static int tok_id(const struct scan *s, const char *text, long i, const char *id, size_t idl)
{
	return i >= 0 && (size_t)i < s->n && s->t[i].len == idl && !memcmp(text + s->t[i].at, id, idl);
}

/* The last non-blank byte before at (SIZE_MAX: none), and the first at or after at (n: none). */
static size_t before_at(const char *text, size_t at)
{
	while (at > 0 && isspace((unsigned char)text[at - 1]))
		at--;
	return at > 0 ? at - 1 : (size_t)-1;
}

static size_t after_at(const char *text, size_t n, size_t at)
{
	while (at < n && isspace((unsigned char)text[at]))
		at++;
	return at;
}

/* Whether text[p...] is an assignment ('=', 'op='), '++' or '--'. */
static int assigns_at(const char *text, size_t n, size_t p)
{
	if (p >= n)
		return 0;
	if (text[p] == '=')
		return p + 1 >= n || text[p + 1] != '=';
	if (p + 1 < n && (text[p] == '+' || text[p] == '-') && text[p + 1] == text[p])
		return 1;
	if (p + 1 < n && strchr("+-*/%&|^", text[p]) && text[p + 1] == '=')
		return 1;
	return p + 2 < n && (text[p] == '<' || text[p] == '>') && text[p + 1] == text[p] && text[p + 2] == '=';
}

/* The end of token i in the text. */
static size_t tok_end(const struct scan *s, long i)
{
	return s->t[i].at + (s->t[i].len ? s->t[i].len : 1);
}

/* The word before the '(' that encloses token i (its index), or -1. */
static long enclosing_call(const struct scan *s, long i)
{
	for (long j = i - 1, depth = 0; j >= 0; j--) {
		char k = s->t[j].kind;
		if (k == ')' || k == ']')
			depth++;
		else if ((k == '(' || k == '[') && depth > 0)
			depth--;
		else if (k == '(')
			return j > 0 && s->t[j - 1].len ? j - 1 : -1;
		else if (k == '[' || k == '{' || k == '}' || k == ';')
			return -1;
	}
	return -1;
}

enum name_kind { NAME_SCALAR, NAME_ARRAY, NAME_POINTER };

/* Whether token i is a word naming a type ('double', 'size_t', 'const', a struct's tag). */
static int type_word(const struct scan *s, const char *text, long i)
{
	static const char *const words[] = { "void", "char", "short", "int", "long", "float", "double",
					     "signed", "unsigned", "const", "volatile", "restrict",
					     "__restrict", "_Bool", "bool", "_Complex" };
	if (i < 0 || !s->t[i].len)
		return 0;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (tok_is(s, text, i, words[k]))
			return 1;
	if (s->t[i].len > 2 && !memcmp(text + s->t[i].at + s->t[i].len - 2, "_t", 2))
		return 1;
	return tok_is(s, text, i - 1, "struct") || tok_is(s, text, i - 1, "union") || tok_is(s, text, i - 1, "enum");
}

/*
 * How id is declared: at file scope as it is written there; else (a local,
 * a parameter, or not found) an array or a pointer wherever the file
 * indexes it ('x['), declares it a pointer ('double *x', ', **x') or
 * dereferences it ('= *x'), a scalar only where it never does.
 */
static enum name_kind declared_kind(const struct scan *s, const char *text, const char *id, size_t idl)
{
	long depth = 0;

	for (size_t i = 0; i < s->n; i++) {
		char k = s->t[i].kind;
		size_t p;
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if ((k == ')' || k == ']' || k == '}') && depth > 0)
			depth--;
		else if (depth == 0 && tok_id(s, text, (long)i, id, idl)) {
			p = before_at(text, s->t[i].at);
			if (p != (size_t)-1 && text[p] == '=')
				continue;   /* another name's initializer */
			if (kind_at(s, (long)i + 1) == '[')
				return NAME_ARRAY;
			if (p != (size_t)-1 && text[p] == '*')
				return NAME_POINTER;
			break;   /* a scalar here, but a local of that name may be more */
		}
	}
	for (size_t i = 0; i < s->n; i++) {
		long j = (long)i - 1;
		if (!tok_id(s, text, (long)i, id, idl))
			continue;
		if (kind_at(s, (long)i + 1) == '[')
			return NAME_ARRAY;
		while (j >= 0 && (tok_is(s, text, j, "restrict") || tok_is(s, text, j, "__restrict") ||
				  tok_is(s, text, j, "const") || tok_is(s, text, j, "volatile")))
			j--;   /* 'double *const restrict x' */
		if (j < 0 || s->t[j].len || text[s->t[j].at] != '*')
			continue;
		while (j >= 0 && !s->t[j].len && text[s->t[j].at] == '*')
			j--;
		/* '*x' after a type is a declaration; after an operator or 'return', a dereference. */
		if (j < 0 || type_word(s, text, j) || tok_is(s, text, j, "return") ||
		    (!s->t[j].len && s->t[j].kind != ')' && s->t[j].kind != ']'))
			return NAME_POINTER;
	}
	return NAME_SCALAR;
}

/*
 * What the occurrence of id at token i does: 0 a read, LS_CONTENT a write
 * of (or a way to) its content, LS_IDENTITY an assignment of the name
 * itself.  A member of something else named id (after '.' or '->') is
 * nothing of it.  A member of id counts as a write unless members is set:
 * then an element of it ('s.v[i]') is read or written as an array's.
 */
static int occurrence(const struct scan *s, const char *text, size_t n, long i, enum name_kind kind, int members)
{
	size_t p = before_at(text, s->t[i].at), a;
	int amp, inc, star, indexed = 0;
	long j = i, call;

	if (p != (size_t)-1 && (text[p] == '.' || (text[p] == '>' && p > 0 && text[p - 1] == '-')))
		return 0;
	amp = p != (size_t)-1 && text[p] == '&' && !(p > 0 && text[p - 1] == '&');
	inc = p != (size_t)-1 && p > 0 && (text[p] == '+' || text[p] == '-') && text[p - 1] == text[p];
	star = p != (size_t)-1 && text[p] == '*';
	call = enclosing_call(s, i);
	if (tok_is(s, text, i - 1, "sizeof") || (call >= 0 && tok_is(s, text, call, "sizeof")))
		return 0;
	while (kind_at(s, j + 1) == '[') {
		if (s->match[j + 1] < 0)
			return LS_CONTENT;
		j = s->match[j + 1];
		indexed = 1;
	}
	a = after_at(text, n, tok_end(s, j));
	if (a < n && (text[a] == '.' || (text[a] == '-' && a + 1 < n && text[a + 1] == '>')) && !members)
		return LS_CONTENT;   /* a member: written or not, the scan does not follow */
	/* With members followed ('s.v[i]', 'g->a.b[i][j]'): an element read or written. */
	while (a < n && (text[a] == '.' || (text[a] == '-' && a + 1 < n && text[a + 1] == '>'))) {
		if (!s->t[j + 1].len && kind_at(s, j + 2) == 'x' && s->t[j + 2].len)
			j += 2;   /* '.' or '-' then the member */
		else if (kind_at(s, j + 3) == 'x' && s->t[j + 3].len)
			j += 3;   /* '-', '>' then the member */
		else
			return LS_CONTENT;
		indexed = 0;
		while (kind_at(s, j + 1) == '[') {
			if (s->match[j + 1] < 0)
				return LS_CONTENT;
			j = s->match[j + 1];
			indexed = 1;
		}
		a = after_at(text, n, tok_end(s, j));
		if (!indexed && !(a < n && (text[a] == '.' || (text[a] == '-' && a + 1 < n && text[a + 1] == '>')))) {
			/* A member's value: assigned, or a pointer kept or passed on, is a write; else read. */
			int kept = p != (size_t)-1 && text[p] == '=' && !(p > 0 && strchr("=!<>", text[p - 1]));
			return amp || inc || kept || assigns_at(text, n, a) || (call >= 0 && s->t[call].kind == 'x')
				       ? LS_CONTENT : 0;
		}
	}
	if (indexed || star)
		return assigns_at(text, n, a) || amp || inc ? LS_CONTENT : 0;
	if (assigns_at(text, n, a) || inc)
		return LS_IDENTITY;
	if (amp)
		return LS_CONTENT;
	if (kind == NAME_SCALAR)
		return 0;   /* its value read */
	/* An array's or pointer's value: tested or freed is read; else it may be kept or passed on. */
	if ((p != (size_t)-1 && text[p] == '!' ) ||
	    (a + 1 < n && (text[a] == '=' || text[a] == '!') && text[a + 1] == '=') ||
	    (call >= 0 && tok_is(s, text, call, "free")))
		return 0;
	return LS_CONTENT;
}

/* C library functions that write nothing of the caller's but what they return. */
static int readonly_call(const struct scan *s, const char *text, long i)
{
	static const char *const names[] = {
		"printf", "fprintf", "puts", "putchar", "fputs", "fflush", "sqrt", "fabs", "pow", "exp",
		"log", "sin", "cos", "floor", "ceil", "fmin", "fmax", "abs", "labs", "llabs", "atoi",
		"atol", "atof", "strlen", "strcmp", "strncmp", "memcmp", "free", "malloc", "calloc",
		"exit", "abort", "assert", "rand", "srand", "omp_get_wtime", "omp_get_thread_num",
		"omp_get_num_threads", "omp_get_max_threads", "omp_get_num_devices",
		"omp_get_default_device", "omp_get_initial_device", "omp_is_initial_device",
	};
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (tok_is(s, text, i, names[k]))
			return 1;
	return 0;
}

/* Words that precede '(' without being a call. */
static int not_a_call(const struct scan *s, const char *text, long i)
{
	static const char *const words[] = { "return", "sizeof", "defined", "alignof", "_Alignof",
					     "__attribute__", "typeof", "__typeof__", "_Static_assert" };
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (tok_is(s, text, i, words[k]))
			return 1;
	return 0;
}

/*
 * Whether a macro's line holds only map clauses ('#define MAP_A map(to:
 * a[0:N])'): names in it are mapped, not written.  No '=', ';' or '++'/'--',
 * and 'map(' in it.
 */
static int clause_macro(const char *l, size_t len)
{
	int map = 0;

	for (size_t i = 0; i < len; i++) {
		if (l[i] == ';' || (l[i] == '=' && (i + 1 == len || l[i + 1] != '=') && (i == 0 || !strchr("=!<>", l[i - 1]))))
			return 0;
		if (i + 1 < len && (l[i] == '+' || l[i] == '-') && l[i + 1] == l[i])
			return 0;
		if (i + 4 <= len && !memcmp(l + i, "map(", 4) && (i == 0 || !(isalnum((unsigned char)l[i - 1]) || l[i - 1] == '_')))
			map = 1;
	}
	return map;
}

/*
 * Whether a preprocessor line but '#pragma' names id (a macro may write it):
 * 1; -1 when id is a macro's own name; 0 when none names it.
 */
static int macro_names(const struct scan *s, const char *text, size_t n, const char *id, size_t idl)
{
	for (int line = 1; line <= s->nlines; line++) {
		size_t b, e, i;
		if (!s->pre[line])
			continue;
		line_span(text, n, line, &b, &e);
		for (i = b; i < e && isspace((unsigned char)text[i]); i++)
			;
		if (i < e && text[i] == '#') {
			for (i++; i < e && isspace((unsigned char)text[i]); i++)
				;
			if (e - i >= 6 && !memcmp(text + i, "pragma", 6))
				continue;
			if (e - i >= 6 && !memcmp(text + i, "define", 6)) {
				size_t m = i + 6;
				while (m < e && isspace((unsigned char)text[m]))
					m++;
				if (m + idl <= e && !memcmp(text + m, id, idl) &&
				    (m + idl == e || !(isalnum((unsigned char)text[m + idl]) || text[m + idl] == '_')))
					return -1;   /* id is this macro: a constant, no variable */
			}
		}
		for (size_t m = i; m + idl <= e; m++)
			if (!memcmp(text + m, id, idl) && (m == b || !(isalnum((unsigned char)text[m - 1]) || text[m - 1] == '_')) &&
			    (m + idl == e || !(isalnum((unsigned char)text[m + idl]) || text[m + idl] == '_')) &&
			    !clause_macro(text + i, e - i))
				return 1;
	}
	return 0;
}

#define BODIES_MAX 256

/*
 * Whether pointer id may point at memory the file names otherwise: it is
 * set from anything but an allocation ('p = grid', 'double *p = a + 1'), or
 * it is a parameter (the caller's memory).  Set only from malloc() and the
 * like, or never set, it is the only name of its memory.
 */
static int pointee_shared(const struct scan *s, const char *text, size_t n, const char *id, size_t idl)
{
	static const char *const allocs[] = { "malloc", "calloc", "realloc", "aligned_alloc", "omp_alloc",
					      "omp_aligned_alloc" };
	for (long i = 0; (size_t)i < s->n; i++) {
		size_t a;
		long call;
		int fresh = 0;
		if (!tok_id(s, text, i, id, idl))
			continue;
		a = after_at(text, n, tok_end(s, i));
		call = enclosing_call(s, i);
		if (a < n && (text[a] == ',' || text[a] == ')') && call >= 0 && s->t[call].kind == 'x') {
			long j = i - 1;
			while (j >= 0 && (tok_is(s, text, j, "restrict") || tok_is(s, text, j, "__restrict") ||
					  tok_is(s, text, j, "const") || tok_is(s, text, j, "volatile")))
				j--;
			if (j > 0 && !s->t[j].len && text[s->t[j].at] == '*' &&
			    (type_word(s, text, j - 1) || (!s->t[j - 1].len && text[s->t[j - 1].at] == '*')))
				return 1;   /* 'type *id' among a function's parameters */
		}
		if (!(a < n && text[a] == '=' && (a + 1 >= n || text[a + 1] != '=')))
			continue;
		for (long j = i + 1, depth = 0; (size_t)j < s->n; j++) {
			char k = s->t[j].kind;
			if (k == '(' || k == '[' || k == '{')
				depth++;
			else if ((k == ')' || k == ']' || k == '}') && --depth < 0)
				break;
			if (depth == 0 && (k == ';' || (!s->t[j].len && k == 'x' && text[s->t[j].at] == ',')))
				break;
			for (size_t w = 0; w < sizeof(allocs) / sizeof(allocs[0]); w++)
				fresh |= tok_is(s, text, j, allocs[w]);
		}
		if (!fresh)
			return 1;
	}
	return 0;
}

/* Whether a '#pragma omp target ...' of these bytes launches a kernel (not data, update, enter, exit). */
static int kernel_pragma(const char *l, size_t len)
{
	const char *end = l + len, *p;
	char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) - 1 ? len : sizeof(buf) - 1), l);
	if (!(p = strstr(buf, "pragma")) || !(p = strstr(p, "omp")) || !(p = strstr(p, "target")))
		return 0;
	(void)end;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	return strncmp(p, "data", 4) && strncmp(p, "update", 6) && strncmp(p, "enter", 5) && strncmp(p, "exit", 4);
}

/*
 * loopscan_host_writes(), or with kernel_last > 0 the same for the
 * statement after the preprocessor line(s) ending there (a kernel: its
 * code and every kernel's count, the device's writes).
 */
static int writes(const char *text, size_t n, const int *first, const int *last, int nranges, const char *skip,
		  size_t skipl, const char *id, size_t idl, int kernel_last)
{
	struct scan s = { 0 };
	long todo[BODIES_MAX][2], seen[BODIES_MAX];
	int ntodo = 0, nseen = 0, flags = 0, shared;
	enum name_kind kind;
	unsigned char *scanned = NULL;

	if (!text || !idl || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0 ||
	    !(scanned = calloc(s.n ? s.n : 1, 1))) {
		flags = LS_CONTENT;
		goto out;
	}
	kind = declared_kind(&s, text, id, idl);
	/* A pointer to memory with other names: a write through any name may be to it. */
	shared = kernel_last <= 0 && kind == NAME_POINTER && pointee_shared(&s, text, n, id, idl);
	switch (macro_names(&s, text, n, id, idl)) {
	case -1:
		goto out;   /* a macro's name ('#define N 4096'): nothing writes it */
	case 1:
		flags |= LS_CONTENT;
		break;
	}
	/* The statements of kernels run on the device: their writes are the device's (recorded). */
	for (int line = 1; line <= s.nlines && kernel_last <= 0; line++) {
		size_t b, e;
		long k, end;
		if (!s.pre[line] || (line > 1 && s.pre[line - 1]))
			continue;
		line_span(text, n, line, &b, &e);
		while (line < s.nlines && s.pre[line + 1] && e > b && text[e - 1] == '\\') {
			size_t b2;
			line_span(text, n, ++line, &b2, &e);
		}
		if (!kernel_pragma(text + b, e - b))
			continue;
		for (k = 0; (size_t)k < s.n && s.t[k].line <= line; k++)
			;
		if ((size_t)k < s.n && (end = stmt_end(&s, k, 0)) >= 0)
			for (long j = k; j <= end; j++)
				scanned[j] = 2;
	}
	if (kernel_last > 0) {
		long k, end;
		for (k = 0; (size_t)k < s.n && s.t[k].line <= kernel_last; k++)
			;
		if ((size_t)k == s.n || (end = stmt_end(&s, k, 0)) < 0) {
			flags = LS_CONTENT;   /* no statement found: unsure */
			goto out;
		}
		todo[ntodo][0] = k;
		todo[ntodo++][1] = end;
		nranges = 0;
	}
	/* The ranges' tokens, then every body they call, each once. */
	for (int r = 0; r < nranges; r++) {
		long a = -1, b = -1;
		for (size_t i = 0; i < s.n; i++)
			if (s.t[i].line >= first[r] && s.t[i].line <= last[r]) {
				if (a < 0)
					a = (long)i;
				b = (long)i;
			}
		if (a >= 0 && ntodo < BODIES_MAX) {
			todo[ntodo][0] = a;
			todo[ntodo++][1] = b;
		}
	}
	while (ntodo > 0 && !(flags & LS_CONTENT && flags & LS_IDENTITY)) {
		long a = todo[ntodo - 1][0], b = todo[ntodo - 1][1];
		ntodo--;
		for (long i = a; i <= b; i++) {
			if (scanned[i] == 2)
				continue;   /* a kernel's */
			scanned[i] = 1;
			if (tok_id(&s, text, i, id, idl)) {
				flags |= occurrence(&s, text, n, i, kind, kernel_last > 0);
				continue;
			}
			if (shared && s.t[i].kind == ']' && s.match[i] >= 0 &&
			    assigns_at(text, n, after_at(text, n, tok_end(&s, i))))
				flags |= LS_CONTENT;   /* an element written by another name */
			if (!s.t[i].len || s.t[i].kind != 'x' || kind_at(&s, i + 1) != '(' || not_a_call(&s, text, i) ||
			    (s.match[i + 1] > 0 && kind_at(&s, s.match[i + 1] + 1) == '{'))
				continue;   /* not a call (a definition's name, a keyword) */
			if (skip && s.t[i].len == skipl && !memcmp(text + s.t[i].at, skip, skipl))
				continue;
			{
				long depth = 0, found = 0;
				for (size_t d = 0; d + 1 < s.n; d++) {
					char k = s.t[d].kind;
					long open;
					if (k == '(' || k == '[' || k == '{')
						depth++;
					else if ((k == ')' || k == ']' || k == '}') && depth > 0)
						depth--;
					if (depth != 0 || !s.t[d].len || s.t[d].len != s.t[i].len ||
					    memcmp(text + s.t[d].at, text + s.t[i].at, s.t[i].len) ||
					    kind_at(&s, (long)d + 1) != '(' || s.match[d + 1] < 0 ||
					    kind_at(&s, s.match[d + 1] + 1) != '{')
						continue;
					open = s.match[d + 1] + 1;
					found = 1;   /* every definition (#ifdef branches): all are followed */
					if (s.match[open] < 0) {
						flags |= LS_CONTENT;
						continue;
					}
					{
						int k2;
						for (k2 = 0; k2 < nseen && seen[k2] != open; k2++)
							;
						if (k2 < nseen)
							continue;
						if (nseen == BODIES_MAX || ntodo == BODIES_MAX) {
							flags |= LS_CONTENT;   /* too many to follow: unsure */
							continue;
						}
						seen[nseen++] = open;
						todo[ntodo][0] = open;
						todo[ntodo++][1] = s.match[open];
					}
				}
				if (!found && !readonly_call(&s, text, i))
					flags |= LS_CONTENT;   /* defined elsewhere: it may write anything */
			}
		}
	}
	/*
	 * Elsewhere in the file, a way to it kept for later ('p = x', '&x', a
	 * call's argument).  Not for a kernel: the host's pointers are not the
	 * device's (a kernel reaching it by another mapped name is not seen).
	 */
	for (size_t i = 0, depth = 0; i < s.n && !(flags & LS_CONTENT) && kernel_last <= 0; i++) {
		char k = s.t[i].kind;
		int top = depth == 0;   /* token i is outside every bracket */
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if ((k == ')' || k == ']' || k == '}') && depth > 0)
			depth--;
		if (scanned[i] || !tok_id(&s, text, (long)i, id, idl))
			continue;
		if (top) {
			size_t p = before_at(text, s.t[i].at);
			if (p != (size_t)-1 && (text[p] == '=' || text[p] == '&'))
				flags |= LS_CONTENT;   /* another name's initializer: an alias */
			continue;                      /* its declaration */
		}
		if (occurrence(&s, text, n, (long)i, kind, 0) & LS_CONTENT) {
			/* A write elsewhere is no alias; a way to it is. */
			size_t p = before_at(text, s.t[i].at), a;
			long j = (long)i;
			while (kind_at(&s, j + 1) == '[' && s.match[j + 1] > 0)
				j = s.match[j + 1];
			a = after_at(text, n, tok_end(&s, j));
			if (j == (long)i && !(p != (size_t)-1 && text[p] == '*') &&
			    !(a < n && (text[a] == '.' || text[a] == '-')))
				flags |= LS_CONTENT;
		}
	}
out:
	free(scanned);
	free(s.t);
	free(s.match);
	free(s.pre);
	return flags;
}

int loopscan_declares(const char *text, size_t n, int first, int last, const char *id, size_t idl)
{
	static const char *const not_types[] = { "return", "goto", "case", "sizeof", "break", "continue",
						 "default" };
	struct scan s = { 0 };
	int found = 0;

	if (!text || !idl || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0) {
		found = 1;   /* unsure: say it is */
		goto out;
	}
	for (size_t i = 0; i + 1 < s.n && !found; i++) {
		char pk = i ? s.t[i - 1].kind : ';';
		int typeword = 1;
		if (s.t[i].line < first || s.t[i].line > last)
			continue;
		if (!(pk == ';' || pk == '{' || pk == '}' || pk == '(' ||
		      (i && !s.t[i - 1].len && s.t[i - 1].kind == 'x' && text[s.t[i - 1].at] == ',')))
			continue;
		if (!s.t[i].len || s.t[i].kind != 'x')
			continue;
		for (size_t k = 0; k < sizeof(not_types) / sizeof(not_types[0]); k++)
			if (tok_is(&s, text, (long)i, not_types[k]))
				typeword = 0;
		/* 'type name', 'type *name': a declaration (or, rarely, 'a * b': counted too). */
		if (!typeword || !(s.t[i + 1].len || (s.t[i + 1].kind == 'x' && text[s.t[i + 1].at] == '*')))
			continue;
		for (size_t j = i + 1, init = 0; j < s.n; j++) {
			char k = s.t[j].kind;
			if (k == '(' || k == '[' || k == '{') {
				if (s.match[j] < 0)
					break;
				if (k == '{')
					break;   /* a body or an initializer list: its names are not declared */
				j = (size_t)s.match[j];
				continue;
			}
			if (k == ';' || k == ')' || k == ']' || k == '}')
				break;
			if (!s.t[j].len && k == 'x' && text[s.t[j].at] == ',')
				init = 0;   /* the next declarator */
			else if (!s.t[j].len && k == 'x' && text[s.t[j].at] == '=' && !init)
				init = 1;   /* its initializer: names read, not declared */
			else if (!init && tok_id(&s, text, (long)j, id, idl))
				found = 1;
		}
	}
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return found;
}

int loopscan_every_pass(const char *text, size_t n, int loop_first, int pragma_last)
{
	static const char *const exits[] = { "continue", "break", "goto", "return", "case", "default",
					     "longjmp", "siglongjmp" };
	struct scan s = { 0 };
	long loop = -1, body, stmt, e;
	int every = 0;

	if (!text || loop_first <= 0 || pragma_last <= 0 || tokenize(&s, text, n) < 0 || match_brackets(&s) < 0)
		goto out;
	for (stmt = 0; (size_t)stmt < s.n && s.t[stmt].line <= pragma_last; stmt++)
		;
	if ((size_t)stmt == s.n)
		goto out;
	/* The outermost loop starting on or after loop_first whose statement holds the construct's. */
	for (long i = 0; i < stmt && loop < 0; i++) {
		char k = s.t[i].kind;
		if (s.t[i].line < loop_first || (k != 'f' && k != 'w' && k != 'd'))
			continue;
		if ((e = stmt_end(&s, i, 0)) >= stmt)
			loop = i;
	}
	if (loop < 0)
		goto out;
	if (s.t[loop].kind == 'd')
		body = loop + 1;
	else if (kind_at(&s, loop + 1) == '(' && s.match[loop + 1] > loop)
		body = s.match[loop + 1] + 1;
	else
		goto out;
	if (body == stmt) {
		every = 1;   /* the loop's whole body */
		goto out;
	}
	if (kind_at(&s, body) != '{' || s.match[body] < stmt)
		goto out;
	/* Directly in the body's block, after a complete statement, with no way past it before it. */
	for (long i = body + 1, depth = 0; i < stmt; i++) {
		char k = s.t[i].kind;
		if (k == '(' || k == '[' || k == '{')
			depth++;
		else if (k == ')' || k == ']' || k == '}')
			depth--;
		for (size_t w = 0; w < sizeof(exits) / sizeof(exits[0]); w++)
			if (tok_is(&s, text, i, exits[w]))
				goto out;
		if (i == stmt - 1)
			every = depth == 0 && k && strchr(";{}", k);
	}
	if (stmt == body + 1)
		every = 1;
out:
	free(s.t);
	free(s.match);
	free(s.pre);
	return every;
}

int loopscan_host_writes(const char *text, size_t n, const int *first, const int *last, int nranges,
			 const char *skip, size_t skipl, const char *id, size_t idl)
{
	return writes(text, n, first, last, nranges, skip, skipl, id, idl, 0);
}

int loopscan_kernel_writes(const char *text, size_t n, int pragma_last, const char *id, size_t idl)
{
	return pragma_last > 0 ? writes(text, n, NULL, NULL, 0, NULL, 0, id, idl, pragma_last) : LS_CONTENT;
}
