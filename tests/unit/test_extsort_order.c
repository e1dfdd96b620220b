/*
 * test_extsort_order.c - lib/extsort.h gives the records back in qsort()'s
 * order whatever order they came in: its own sort takes the ascending
 * stretches as they are (random, sorted, reversed, nearly sorted, saw-tooth,
 * few distinct keys), in memory and through the file.
 */
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"
#include "lib/extsort.h"

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

static void check_shape(int shape, size_t n, size_t buffer)
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
	for (size_t i = 0; i < n; i++) {
		want[i] = (struct rec){ key_of(shape, i, n), (int64_t)(i % 7), 0 };
		if (extsort_add(s, &want[i], &why) < 0)
			bad = 1;
	}
	CHECK(!bad);
	qsort(want, n, sizeof(*want), cmp_rec);
	r = extsort_read(s);
	CHECK(r != NULL);
	while (r && extsort_next(r, &got) == 1) {
		if (k >= n || cmp_rec(&got, &want[k]))
			bad = 1;
		k++;
	}
	extsort_reader_free(r);
	if (bad || k != n)
		fprintf(stderr, "shape %d, %zu records, buffer %zu: out of order or lost\n", shape, n, buffer);
	CHECK(!bad);
	CHECK_INT(k, n);
out:
	free(want);
	extsort_free(s);
}

static void test_shapes(void)
{
	size_t sizes[] = { 0, 1, 2, 31, 32, 33, 100, 1000, 20000 };
	for (int shape = 0; shape < 6; shape++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
			check_shape(shape, sizes[i], 0);
			check_shape(shape, sizes[i], 777);
		}
}

int main(void)
{
	RUN(test_shapes);
	return check_done();
}
