/*
 * check.h - the smallest unit-test harness that says what failed.
 *
 * A test file defines test functions, calls them from main() through RUN(),
 * and returns check_done().  CHECK* macros record a failure with file:line and
 * keep going, so one run shows every broken expectation.
 */
#ifndef MAPPROF_TESTS_CHECK_H
#define MAPPROF_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_tests;
static int check_tests_failed;

#define CHECK(cond) do { if (!(cond)) { check_failures++; \
	fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); } } while (0)

#define CHECK_INT(got, want) do { long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) { check_failures++; fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", \
	__FILE__, __LINE__, #got, g_, w_); } } while (0)

#define CHECK_STR(got, want) do { const char *g_ = (got), *w_ = (want); \
	if (!g_ || !w_ || strcmp(g_, w_)) { check_failures++; fprintf(stderr, \
	"%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__, __LINE__, #got, \
	g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } } while (0)

#define RUN(fn) do { int before_ = check_failures; check_tests++; fn(); \
	if (check_failures != before_) { check_tests_failed++; \
	fprintf(stderr, "FAIL %s\n", #fn); } else { printf("ok   %s\n", #fn); } } while (0)

static inline int check_done(void)
{
	printf("%d passed, %d failed\n", check_tests - check_tests_failed, check_tests_failed);
	return check_tests_failed ? 1 : 0;
}

#endif
