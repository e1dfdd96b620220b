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

static const char host[] =
	"#define N 64\n"                                      /* 1 */
	"static int a[N], b[N], *p, n = N;\n"                 /* 2 */
	"static int *const alias = b;\n"                      /* 3 */
	"static void fill(void) { for (int i = 0; i < N; i++) a[i] = i; }\n"  /* 4 */
	"static void prep(void) { fill(); }\n"                /* 5 */
	"static int peek(void) { return a[0] + b[1]; }\n"     /* 6 */
	"static void kern(void)\n"                            /* 7 */
	"{\n"                                                 /* 8 */
	"#pragma omp target map(tofrom: a)\n"                 /* 9 */
	"\t{ a[0] = 1; }\n"                                  /* 10 */
	"}\n"                                                 /* 11 */
	"int main(void)\n"                                    /* 12 */
	"{\n"                                                 /* 13 */
	"\tint shown, n2 = 16, m = n;\n"                     /* 14 */
	"\tfor (int s = 0; s < 4; s++) {\n"                  /* 15 */
	"\t\tprep();\n"                                     /* 16 */
	"\t\tpeek();\n"                                     /* 17 */
	"\t\tkern();\n"                                     /* 18 */
	"\t\tp = &b[0];\n"                                  /* 19 */
	"\t}\n"                                              /* 20 */
	"\treturn shown + n2 + m + external();\n"            /* 21 */
	"}\n";                                                /* 22 */

static int writes(int first, int last, const char *id)
{
	return loopscan_host_writes(host, sizeof(host) - 1, &first, &last, 1, NULL, 0, id, strlen(id));
}

static void host_writes(void)
{
	/* prep() -> fill() writes a: two levels down. */
	CHECK_INT(writes(16, 16, "a"), LS_CONTENT);
	/* peek() only reads; b has an alias (line 3) anywhere in the file. */
	CHECK_INT(writes(17, 17, "a"), 0);
	CHECK_INT(writes(17, 17, "b"), LS_CONTENT);
	/* kern()'s write is in its kernel: the device's. */
	CHECK_INT(writes(18, 18, "a"), 0);
	/* 'p = &b[0]': p's identity, and a way to b. */
	CHECK_INT(writes(19, 19, "p"), LS_IDENTITY);
	CHECK_INT(writes(19, 19, "b") & LS_CONTENT, LS_CONTENT);
	/* A macro's own name is no variable; a call defined elsewhere may write anything. */
	CHECK_INT(writes(15, 20, "N"), 0);
	CHECK_INT(writes(21, 21, "n"), LS_CONTENT);
}

/* Locals: an array or a pointer passed on, or kept by another name, is a way to its content. */
static const char locals[] =
	"static void fill(double *v, int n) { for (int i = 0; i < n; i++) v[i] = i; }\n" /* 1 */
	"int main(void)\n"                                     /* 2 */
	"{\n"                                                  /* 3 */
	"\tdouble x[8], y[8], *q = 0, k = 2;\n"              /* 4 */
	"\tdouble *p = y;\n"                                  /* 5 */
	"\tfor (int s = 0; s < 4; s++) {\n"                   /* 6 */
	"\t\tfill(x, 8);\n"                                 /* 7 */
	"\t\tp[0] = k;\n"                                   /* 8 */
	"\t\tfill(q, 8);\n"                                 /* 9 */
	"\t\tk = k * 2;\n"                                  /* 10 */
	"\t}\n"                                               /* 11 */
	"\treturn 0;\n"                                       /* 12 */
	"}\n";                                                 /* 13 */

static void local_writes(void)
{
	const size_t n = sizeof(locals) - 1;
	int first = 7, last = 7;
	CHECK_INT(loopscan_host_writes(locals, n, &first, &last, 1, NULL, 0, "x", 1), LS_CONTENT);
	first = last = 8;   /* y only through p, kept on line 5 */
	CHECK_INT(loopscan_host_writes(locals, n, &first, &last, 1, NULL, 0, "y", 1), LS_CONTENT);
	first = last = 9;
	CHECK_INT(loopscan_host_writes(locals, n, &first, &last, 1, NULL, 0, "q", 1), LS_CONTENT);
	/* A local scalar read and passed by value: no write of it there. */
	first = last = 8;
	CHECK_INT(loopscan_host_writes(locals, n, &first, &last, 1, NULL, 0, "k", 1), 0);
}

/* Whether a construct runs at every pass of its loop, the first included. */
static const char passes[] =
	"void f(int n, double *x)\n"                           /* 1 */
	"{\n"                                                  /* 2 */
	"\tfor (int s = 0; s < n; s++) {\n"                   /* 3 */
	"\t\tif (s == 0) x[0] = 1;\n"                      /* 4 */
	"#pragma omp target map(to: x[0:n])\n"                /* 5 */
	"\t\t{ x[1] = 2; }\n"                               /* 6 */
	"\t\tif (s > 0) {\n"                                /* 7 */
	"#pragma omp target map(to: x[0:n])\n"                /* 8 */
	"\t\t\t{ x[1] = 2; }\n"                            /* 9 */
	"\t\t}\n"                                           /* 10 */
	"\t\tif (s & 1)\n"                                  /* 11 */
	"\t\t\tcontinue;\n"                                /* 12 */
	"#pragma omp target map(to: x[0:n])\n"                /* 13 */
	"\t\t{ x[1] = 2; }\n"                               /* 14 */
	"\t}\n"                                               /* 15 */
	"\twhile (n-- > 0)\n"                                 /* 16 */
	"#pragma omp target map(to: x[0:n])\n"                /* 17 */
	"\t\t{ x[1] = 2; }\n"                               /* 18 */
	"}\n";                                                 /* 19 */

static void every_pass(void)
{
	const size_t n = sizeof(passes) - 1;
	CHECK(loopscan_every_pass(passes, n, 3, 5));     /* after a complete if */
	CHECK(!loopscan_every_pass(passes, n, 3, 8));    /* inside an if */
	CHECK(!loopscan_every_pass(passes, n, 3, 13));   /* after a 'continue' */
	CHECK(loopscan_every_pass(passes, n, 16, 17));   /* the loop's whole body */
	CHECK(!loopscan_every_pass(passes, n, 16, 5));   /* no loop from line 16 around it */
}

/* What a kernel writes: its own code and what it calls, not the host's. */
static const char kernels[] =
	"static void twice(double *v, int i) { v[i] *= 2; }\n"  /* 1 */
	"void f(int n, double *x, double *y, double *t)\n"     /* 2 */
	"{\n"                                                  /* 3 */
	"\tdouble *alias = t;\n"                              /* 4 */
	"#pragma omp target map(to: x[0:n], t[0:n]) \\\n"    /* 5 */
	"\tmap(tofrom: y[0:n])\n"                             /* 6 */
	"\tfor (int i = 0; i < n; i++) {\n"                   /* 7 */
	"\t\ty[i] += x[i] * t[i];\n"                        /* 8 */
	"\t\ttwice(y, i);\n"                                /* 9 */
	"\t}\n"                                               /* 10 */
	"\tx[0] = alias[0];\n"                                /* 11 */
	"}\n";                                                 /* 12 */

static void kernel_writes(void)
{
	const size_t n = sizeof(kernels) - 1;
	CHECK_INT(loopscan_kernel_writes(kernels, n, 6, "y", 1), LS_CONTENT);   /* and through twice() */
	CHECK_INT(loopscan_kernel_writes(kernels, n, 6, "x", 1), 0);            /* the host's write, after */
	CHECK_INT(loopscan_kernel_writes(kernels, n, 6, "t", 1), 0);            /* a host pointer to it */
	CHECK_INT(loopscan_kernel_writes(kernels, n, 0, "t", 1), LS_CONTENT);   /* no kernel: unsure */
}

/* A struct's members in a kernel: an element read is a read, one written or a member passed on is a write. */
static const char members[] =
	"struct w { double *v, *u; int n; };\n"                /* 1 */
	"void g(struct w *p, struct w q, double *out)\n"       /* 2 */
	"{\n"                                                  /* 3 */
	"#pragma omp target map(to: p->v[0:p->n], q.v[0:q.n])\n" /* 4 */
	"\tfor (int i = 0; i < q.n; i++)\n"                   /* 5 */
	"\t\tout[i] = p->v[i] + q.v[i];\n"                  /* 6 */
	"#pragma omp target map(to: p->v[0:p->n], q.v[0:q.n])\n" /* 7 */
	"\tfor (int i = 0; i < q.n; i++)\n"                   /* 8 */
	"\t\tp->u[i] = q.v[i]++;\n"                         /* 9 */
	"}\n";                                                 /* 10 */

static void kernel_members(void)
{
	const size_t n = sizeof(members) - 1;
	CHECK_INT(loopscan_kernel_writes(members, n, 4, "p", 1), 0);
	CHECK_INT(loopscan_kernel_writes(members, n, 4, "q", 1), 0);
	CHECK_INT(loopscan_kernel_writes(members, n, 7, "p", 1), LS_CONTENT);
	CHECK_INT(loopscan_kernel_writes(members, n, 7, "q", 1), LS_CONTENT);
}

/* A pointer to memory the file names otherwise: a write by any name may be to it. */
static const char pointees[] =
	"static double grid[8], other[8];\n"                   /* 1 */
	"void f(double *restrict par, int n)\n"                /* 2 */
	"{\n"                                                  /* 3 */
	"\tdouble *g = grid, *h = malloc(8 * sizeof(*h));\n"   /* 4 */
	"\tfor (int s = 0; s < n; s++) {\n"                   /* 5 */
	"\t\tgrid[s] = s;\n"                                /* 6 */
	"\t\tother[s]++;\n"                                 /* 7 */
	"\t}\n"                                               /* 8 */
	"}\n";                                                 /* 9 */

static void shared_pointees(void)
{
	const size_t n = sizeof(pointees) - 1;
	int first = 6, last = 6;
	CHECK_INT(loopscan_host_writes(pointees, n, &first, &last, 1, NULL, 0, "g", 1), LS_CONTENT);
	first = last = 7;
	CHECK_INT(loopscan_host_writes(pointees, n, &first, &last, 1, NULL, 0, "par", 3), LS_CONTENT);
	/* Memory only h names: another name's write is not to it. */
	first = 6, last = 7;
	CHECK_INT(loopscan_host_writes(pointees, n, &first, &last, 1, NULL, 0, "h", 1), 0);
}

static void declares(void)
{
	const size_t n = sizeof(host) - 1;
	/* The second name of a list, not a name in an initializer. */
	CHECK(loopscan_declares(host, n, 12, 22, "n2", 2));
	CHECK(loopscan_declares(host, n, 12, 22, "shown", 5));
	CHECK(!loopscan_declares(host, n, 12, 22, "n", 1));
	CHECK(loopscan_declares(host, n, 12, 22, "s", 1));   /* a for's first clause */
	CHECK(!loopscan_declares(host, n, 12, 22, "a", 1));
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
	RUN(host_writes);
	RUN(local_writes);
	RUN(every_pass);
	RUN(kernel_writes);
	RUN(kernel_members);
	RUN(shared_pointees);
	RUN(declares);
	RUN(loops);
	return check_done();
}
