/*
 * flang_name.c - flang's internal names, readable (flang_name.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/attribute/flang_name.h"

#define OFFLOAD_PREFIX "__omp_offloading_"

/* Fortran identifiers as flang writes them: lower case, digits, '_'. */
static size_t ident_len(const char *s)
{
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n;
}

struct out {
	char *p;
	size_t len, cap;
	int bad;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->bad)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = (o->len + n + 1) * 2;
		char *p = realloc(o->p, cap);
		if (!p) {
			o->bad = 1;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = 0;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/*
 * The name after "_Q" at s[0..n) into *o; 0, or -1 when it does not follow
 * the grammar (then the name is shown as it is).
 */
static int demangle_body(const char *s, size_t n, struct out *o)
{
	size_t i = 0;
	int parts = 0, kinds = 0;

	/* "_QQ...": a name the compiler made; "main" is the main program's. */
	if (n && s[0] == 'Q') {
		if (n == 5 && !memcmp(s + 1, "main", 4)) {
			puts_(o, "main");
			return 0;
		}
		return -1;  /* literals, read-only data: nothing to show but the symbol */
	}
	while (i < n) {
		char tag = s[i++];
		const char *sep = parts ? "::" : "";
		size_t len;

		if (tag == 'E' && i < n && s[i] == 'C')
			i++;          /* EC: a constant, shown as a variable */
		else if ((tag == 'K' && i < n && s[i] == 'N') || (tag == 'Y' && i < n && s[i] == 'I'))
			i++;          /* KN (negative kind), YI */
		len = ident_len(s + i);
		if (i + len > n)
			len = n - i;  /* the name ends where the caller's part does ("step" of "step_l15") */
		switch (tag) {
		case 'M': case 'F': case 'P': case 'E': case 'T': case 'N':
			/* The main program's own scope is "F" with no name: its variables are "main::x". */
			if (!len && tag == 'F') {
				puts_(o, "main");
				parts++;
				break;
			}
			if (!len)
				return -1;
			puts_(o, sep);
			put(o, s + i, len);
			parts++;
			break;
		case 'S':  /* a submodule: module:submodule */
			if (!len || !parts)
				return -1;
			puts_(o, ":");
			put(o, s + i, len);
			break;
		case 'B':  /* a block construct, numbered by the compiler */
			puts_(o, sep);
			puts_(o, "block");
			put(o, s + i, len);
			parts++;
			break;
		case 'C':
			puts_(o, sep);
			puts_(o, "common /");
			put(o, s + i, len);
			puts_(o, "/");
			parts++;
			break;
		case 'K':
			if (!len || !parts)
				return -1;
			puts_(o, kinds++ ? "," : "(kind=");
			if (s[i - 1] == 'N')
				puts_(o, "-");
			put(o, s + i, len);
			break;
		case 'D': case 'Y':  /* compiler-made tables of a type: "_QDTt", the table of type t */
			if (len || parts)
				return -1;
			puts_(o, tag == 'D' ? "dispatch table of " : "type descriptor of ");
			break;
		default:
			return -1;
		}
		i += len;
		if (kinds && (i >= n || s[i] != 'K')) {
			puts_(o, ")");
			kinds = 0;
		}
	}
	return parts ? 0 : -1;
}

char *flang_name_demangle(const char *name)
{
	struct out o = { 0 };
	const char *q, *l;

	if (!name)
		return NULL;
	if (!strncmp(name, "_Q", 2)) {
		if (demangle_body(name + 2, strlen(name + 2), &o) < 0 || o.bad) {
			free(o.p);
			return NULL;
		}
		return o.p;
	}
	/* An offload entry point: __omp_offloading_<dev>_<file>_<name>_l<line>. */
	if (strncmp(name, OFFLOAD_PREFIX, strlen(OFFLOAD_PREFIX)) || !(q = strstr(name, "__Q")) ||
	    !(l = strrchr(q, '_')) || l[1] != 'l' || l <= q + 3)
		return NULL;
	if (demangle_body(q + 3, (size_t)(l - q - 3), &o) < 0 || o.bad) {
		free(o.p);
		return NULL;
	}
	{
		char *full = NULL;
		if (asprintf(&full, "%.*s_%s%s", (int)(q - name), name, o.p, l) < 0)
			full = NULL;
		free(o.p);
		return full;
	}
}
