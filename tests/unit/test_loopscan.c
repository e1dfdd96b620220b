/*
 * test_loopscan.c - the loop, statement, function and file-scope names that
 * report/plan/loopscan.c finds in C source text (the fix plans' regions).
 */
#include "tests/unit/check.h"
#include "report/plan/loopscan.h"

static const char src[] =
	"#include <stdio.h>\n"                              /* 1 */
	"static int adj[64], dist[8], ne = 8;\n"            /* 2 */
	"struct grid { int n; double *v; };\n"              /* 3 */
	"static int spread(int src, int ne2)\n"             /* 4 */
	"{\n"                                               /* 5 */
	"\tint more = 1, norm = 0;\n"                       /* 6 */
	"\twhile (more) {\n"                                /* 7 */
	"#pragma omp target map(to: adj) map(tofrom: dist)\n" /* 8 */
	"\t\t{ dist[src] = adj[ne2]; }\n"                   /* 9 */
	"\t\tmore = 0;\n"                                   /* 10 */
	"\t}\n"                                             /* 11 */
	"\treturn norm;\n"                                  /* 12 */
	"}\n"                                               /* 13 */
	"int late;\n"                                       /* 14 */
	"int main(void)\n"                                  /* 15 */
	"{\n"                                               /* 16 */
	"\tfor (int s = 0; s < 4; s++)\n"                   /* 17 */
	"\t\tspread(s, late);\n"                            /* 18 */
	"\treturn 0;\n"                                     /* 19 */
	"}\n";                                              /* 20 */

static void function_spans(void)
{
	int first = 0, last = 0;
	CHECK(loopscan_function(src, sizeof(src) - 1, 8, &first, &last));
	CHECK_INT(first, 4);   /* the return type and parameters go with it */
	CHECK_INT(last, 13);
	CHECK(loopscan_function(src, sizeof(src) - 1, 18, &first, &last));
	CHECK_INT(first, 15);
	CHECK_INT(last, 20);
	/* A file-scope line, a struct's body: no function. */
	CHECK(!loopscan_function(src, sizeof(src) - 1, 2, &first, &last));
	CHECK(!loopscan_function(src, sizeof(src) - 1, 14, &first, &last));
}

static void file_scope_names(void)
{
	const size_t n = sizeof(src) - 1;
	CHECK(loopscan_file_scope(src, n, "adj", 3, 17));
	CHECK(loopscan_file_scope(src, n, "dist", 4, 17));
	CHECK(loopscan_file_scope(src, n, "ne", 2, 17));
	CHECK(!loopscan_file_scope(src, n, "more", 4, 17));   /* a local */
	CHECK(!loopscan_file_scope(src, n, "norm", 4, 17));   /* declared after a comma */
	CHECK(!loopscan_file_scope(src, n, "src", 3, 17));    /* a parameter */
	CHECK(!loopscan_file_scope(src, n, "spread", 6, 17)); /* a function */
	CHECK(!loopscan_file_scope(src, n, "v", 1, 17));      /* a struct's member */
	CHECK(loopscan_file_scope(src, n, "late", 4, 17));
	CHECK(!loopscan_file_scope(src, n, "late", 4, 14));  /* declared after the line */
}

static void mentions(void)
{
	const size_t n = sizeof(src) - 1;
	/* spread()'s lines before its loop name 'more' and 'norm', not 'dist'. */
	CHECK(loopscan_mentions(src, n, 5, 6, "more", 4));
	CHECK(!loopscan_mentions(src, n, 5, 6, "dist", 4));
	/* main()'s line 18 calls spread(), whose body names 'dist': one level deep. */
	CHECK(loopscan_mentions(src, n, 18, 18, "dist", 4));
	CHECK(!loopscan_mentions(src, n, 18, 18, "late2", 5));
	/* A definition is not a call: spread's own first line does not pull its body in. */
	CHECK(!loopscan_mentions(src, n, 4, 4, "dist", 4));
	CHECK(!loopscan_mentions(src, n, 7, 6, "more", 4));   /* no lines */
}

static void loops(void)
{
	struct loop_span l = { 0 };
	CHECK(loopscan_find(src, sizeof(src) - 1, 8, &l));
	CHECK_INT(l.first_line, 7);
	CHECK_INT(l.last_line, 11);
	/* A directive's line: the loop around its statement; a call's: its own too. */
	CHECK(!loopscan_find(src, sizeof(src) - 1, 18, &l));
	CHECK(loopscan_find_call(src, sizeof(src) - 1, 18, &l));
	CHECK_INT(l.first_line, 17);
	CHECK_INT(l.last_line, 18);
	CHECK(!l.leaves);
}

int main(void)
{
	RUN(function_spans);
	RUN(file_scope_names);
	RUN(mentions);
	RUN(loops);
	return check_done();
}
