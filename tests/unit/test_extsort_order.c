/*
 * test_extsort_order.c - lib/extsort.h gives the records back in qsort()'s
 * order whatever order they came in: its own sort takes the ascending
 * stretches as they are (random, sorted, reversed, nearly sorted, saw-tooth,
 * few distinct keys), in memory and through the file, with runs written
 * whole or through a codec (extsort_set_codec(); the findings' operations'
 * own, report/findings/opspill.c, at the extremes of every field); a
 * failed write of a coded run fails the add, and a damaged code makes no
 * record (pwrite() below stands in for libc's to fail or damage one).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "lib/extsort.h"
#include "lib/varint.h"
#include "report/findings/opspill.h"

struct rec {
	int64_t key;
	int64_t tie;
	int64_t pad;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->tie > y->tie) - (x->tie < y->tie);
}

static uint64_t rng = 88172645463325252ULL;

static int64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (int64_t)(rng >> 1);
}

static int64_t key_of(int shape, size_t i, size_t n)
{
	switch (shape) {
	case 0: return next_rand() % 1000000;
	case 1: return (int64_t)i;
	case 2: return (int64_t)(n - i);
	case 3: return (int64_t)i * 10 + (next_rand() % 100 < 3 ? -(next_rand() % 500) : 0);
	case 4: return (int64_t)(i % 97);
	default: return next_rand() % 4;
	}
}

/* A codec for struct rec: key and tie as zigzag differences, pad as a varint. */
static int fail_at = -1;   /* decode refuses a record of this key */

static size_t rec_encode(const void *prev, const void *rec, unsigned char *out)
{
	const struct rec *a = prev, *b = rec;
	unsigned char *p = out;

	p = zigzag_put(p, (uint64_t)b->key - (uint64_t)a->key);
	p = zigzag_put(p, (uint64_t)b->tie - (uint64_t)a->tie);
	p = varint_put(p, (uint64_t)b->pad);
	return (size_t)(p - out);
}

static size_t rec_decode(void *rec, const unsigned char *in, size_t avail)
{
	struct rec *x = rec;
	const unsigned char *p = in;
	uint64_t k, t, pad;

	if (!varint_get_n(&p, in + avail, &k) || !varint_get_n(&p, in + avail, &t) ||
	    !varint_get_n(&p, in + avail, &pad))
		return 0;
	x->key = (int64_t)((uint64_t)x->key + zigzag_value(k));
	x->tie = (int64_t)((uint64_t)x->tie + zigzag_value(t));
	x->pad = (int64_t)pad;
	return x->key == fail_at ? 0 : (size_t)(p - in);
}

static void check_shape(int shape, size_t n, size_t buffer, int coded)
{
	struct extsort *s = extsort_new(sizeof(struct rec), cmp_rec, buffer);
	struct rec *want = malloc(n * sizeof(*want)), got;
	struct extsort_reader *r;
	const char *why = NULL;
	size_t k = 0;
	int bad = 0;

	CHECK(s && want);
	if (!s || !want)
		goto out;
	if (coded)
		extsort_set_codec(s, rec_encode, rec_decode, 3 * VARINT_MAX);
	for (size_t i = 0; i < n; i++) {
		int64_t key = key_of(shape, i, n);
		/* pad: whatever key and tie make, so that records equal in order are equal in bytes. */
		want[i] = (struct rec){ key, (int64_t)(i % 7), key * 1000003 ^ (int64_t)(i % 7) << 40 };
		if (extsort_add(s, &want[i], &why) < 0)
			bad = 1;
	}
	CHECK(!bad);
	qsort(want, n, sizeof(*want), cmp_rec);
	r = extsort_read(s);
	CHECK(r != NULL);
	while (r && extsort_next(r, &got) == 1) {
		if (k >= n || memcmp(&got, &want[k], sizeof(got)))
			bad = 1;
		k++;
	}
	extsort_reader_free(r);
	if (bad || k != n)
		fprintf(stderr, "shape %d, %zu records, buffer %zu%s: out of order or lost\n", shape, n, buffer,
			coded ? ", coded" : "");
	CHECK(!bad);
	CHECK_INT(k, n);
out:
	free(want);
	extsort_free(s);
}

static void test_shapes(void)
{
	size_t sizes[] = { 0, 1, 2, 31, 32, 33, 100, 1000, 20000 };
	for (int coded = 0; coded < 2; coded++)
		for (int shape = 0; shape < 6; shape++)
			for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
				check_shape(shape, sizes[i], 0, coded);
				check_shape(shape, sizes[i], 777, coded);
			}
	/* Coded runs longer than a read's chunk (64 KiB): records cut at a chunk's end. */
	for (int shape = 0; shape < 6; shape++)
		check_shape(shape, 200000, 70000, 1);
}

/* A code that makes no record: the reader says the file failed, it does not make one up. */
static void test_coded_bad(void)
{
	struct extsort *s = extsort_new(sizeof(struct rec), cmp_rec, 100);
	struct extsort_reader *r;
	struct rec x;
	const char *why = NULL;
	int rc = 1;
	size_t k = 0;

	CHECK(s != NULL);
	extsort_set_codec(s, rec_encode, rec_decode, 3 * VARINT_MAX);
	for (int64_t i = 0; i < 1000; i++)
		CHECK_INT(extsort_add(s, &(struct rec){ i, 0, i }, &why), 0);
	fail_at = 555;
	r = extsort_read(s);
	CHECK(r != NULL);
	while (r && (rc = extsort_next(r, &x)) == 1)
		k++;
	CHECK_INT(rc, -1);
	CHECK(k <= 555);
	extsort_reader_free(r);
	fail_at = -1;
	/* A codec set after the first record is not taken: whole records, all of them back. */
	r = extsort_read(s);
	extsort_reader_free(r);
	extsort_free(s);
	s = extsort_new(sizeof(struct rec), cmp_rec, 100);
	CHECK_INT(extsort_add(s, &(struct rec){ 1, 0, 0 }, &why), 0);
	fail_at = 1;
	extsort_set_codec(s, rec_encode, rec_decode, 3 * VARINT_MAX);
	for (int64_t i = 2; i < 300; i++)
		CHECK_INT(extsort_add(s, &(struct rec){ i, 0, 0 }, &why), 0);
	r = extsort_read(s);
	for (k = 0; r && extsort_next(r, &x) == 1;)
		k++;
	CHECK_INT(k, 299);
	fail_at = -1;
	extsort_reader_free(r);
	extsort_free(s);
}

/* Armed: the next pwrite() fails (EIO), or writes 41 bytes 0xff and five 0x01 first. */
static int pwrite_fail, pwrite_damage;

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	if (pwrite_fail) {
		pwrite_fail = 0;
		errno = EIO;
		return -1;
	}
	if (pwrite_damage && n >= 46) {
		unsigned char *bad = malloc(n);
		ssize_t k;
		pwrite_damage = 0;
		if (!bad)
			return -1;
		memcpy(bad, buf, n);
		memset(bad, 0xff, 41);
		memset(bad + 41, 0x01, 5);
		k = real(fd, bad, n, off);
		free(bad);
		return k;
	}
	return real(fd, buf, n, off);
}

/* A coded run's write that fails (its first part, the rest written after it) fails the add. */
static void test_coded_write_fails(void)
{
	struct extsort *s = extsort_new(sizeof(struct rec), cmp_rec, 70000);
	const char *why = NULL;
	int rc = 0;

	CHECK(s != NULL);
	extsort_set_codec(s, rec_encode, rec_decode, 3 * VARINT_MAX);
	for (int64_t i = 0; i < 70000; i++)
		CHECK_INT(extsort_add(s, &(struct rec){ i * 3, 0, i }, &why), 0);
	pwrite_fail = 1;   /* the run's ~350 KB go out 256 KiB at a time: the first write fails */
	rc = extsort_add(s, &(struct rec){ 0, 0, 0 }, &why);
	pwrite_fail = 0;
	CHECK_INT(rc, -1);
	CHECK_STR(why, "cannot write to a temporary file to sort in");
	extsort_free(s);
}

/* A code longer than any opspill writes (a damaged file) is refused, not read on past. */
static void test_opspill_damaged(void)
{
	struct opspill *s = opspill_new(1000);
	const char *why = NULL;

	CHECK(s != NULL);
	for (int64_t i = 0; i < 1000; i++)
		CHECK_INT(opspill_add(s, &(struct spill_op){ i, i * 10, i * 10 + 5, 0, 8 }, &why), 0);
	pwrite_damage = 1;
	CHECK_INT(opspill_add(s, &(struct spill_op){ 1000, 10000, 10005, 0, 8 }, &why), 0);
	pwrite_damage = 0;
	CHECK_INT(opspill_runs(s), 1);
	CHECK(opspill_read(s) == NULL);   /* its first code makes no record */
	opspill_free(s);
}

/* The findings' operations through opspill's codec, every field at its extremes: byte for byte, in order, twice. */
static void opspill_codec(size_t buffer)
{
	enum { N = 40000 };
	static const int64_t wide[] = { INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX };
	struct spill_op *want = calloc(N, sizeof(*want)), got;
	struct opspill *s = opspill_new(buffer);
	const char *why = NULL;

	CHECK(want && s);
	if (!want || !s)
		goto out;
	for (size_t i = 0; i < N; i++) {
		struct spill_op *o = &want[i];
		int odd = next_rand() % 10 == 0;
		o->begin_ns = odd ? wide[next_rand() % 7] : (int64_t)i * 1000 + next_rand() % 5000;
		o->end_ns = odd ? wide[next_rand() % 7] : o->begin_ns + next_rand() % 100000;
		o->seq = odd ? wide[next_rand() % 7] : (int64_t)i * 3 + next_rand() % 10;
		o->occurrence = odd ? UINT32_MAX - (uint32_t)(next_rand() % 2) : (uint32_t)(next_rand() % 100000);
		o->tag = odd ? UINT32_MAX : SPILL_TAG(next_rand() % 5000, next_rand() % 5, next_rand() % 2);
		CHECK_INT(opspill_add(s, o, &why), 0);
	}
	CHECK(opspill_runs(s) >= N / buffer);
	qsort(want, N, sizeof(*want), opspill_cmp);
	for (int pass = 0; pass < 2; pass++) {
		struct opspill_reader *r = opspill_read(s);
		size_t k = 0, bad = 0;
		CHECK(r != NULL);
		while (r && opspill_next(r, &got) == 1) {
			/* Ties in (begin_ns, seq, tag) may come in either order: compare those fields, then the rest. */
			if (k >= N || opspill_cmp(&got, &want[k]))
				bad++;
			k++;
		}
		CHECK_INT(bad, 0);
		CHECK_INT(k, N);
		opspill_reader_free(r);
	}
	/* And the multiset of whole records is the same: a sum of hashes of their bytes. */
	{
		struct opspill_reader *r = opspill_read(s);
		uint64_t a = 0, b = 0;
		for (size_t i = 0; i < N; i++) {
			uint64_t h = 1469598103934665603ULL;
			for (size_t j = 0; j < sizeof(want[i]); j++)
				h = (h ^ ((unsigned char *)&want[i])[j]) * 1099511628211ULL;
			a += h;
		}
		while (r && opspill_next(r, &got) == 1) {
			uint64_t h = 1469598103934665603ULL;
			for (size_t j = 0; j < sizeof(got); j++)
				h = (h ^ ((unsigned char *)&got)[j]) * 1099511628211ULL;
			b += h;
		}
		CHECK(a == b);
		opspill_reader_free(r);
	}
out:
	free(want);
	opspill_free(s);
}

/* Short runs, and runs longer than a read's chunk. */
static void test_opspill_codec(void) { opspill_codec(333); opspill_codec(15000); }

int main(void)
{
	RUN(test_shapes);
	RUN(test_coded_bad);
	RUN(test_opspill_codec);
	RUN(test_coded_write_fails);
	RUN(test_opspill_damaged);
	return check_done();
}
