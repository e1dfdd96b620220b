#!/usr/bin/env bash
# hash_function.sh - which piece hash a recording used, and that both
# definitions hash as the independent tracer does (tests/tracer/tracer.c,
# written apart from collector/): by default, on a CPU with AES instructions,
# pieces of 4 KiB and more go through aeshash (stats.hash_function = 2);
# MAPPROF_HASH=xxh3 keeps to XXH3-64 (1).  Transfers below 4 KiB hash the
# same either way, those of 4 KiB and more (a 4 KiB array, 20 KiB and 2 MiB
# ones in chunks, a tail chunk past 4 KiB) differently, and every hash of
# each recording is the tracer's.  'mapprof diff' of the two says their
# results cannot be compared by content (not that they differ).
. "$(dirname "$0")/lib.sh"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	/* 400 B, 4000 B, 4 KiB, 20 KiB (a 4 KiB tail chunk), 2 MiB + 4100 B (a tail chunk past 4 KiB). */
	enum { A = 100, B = 1000, C = 1024, D = 5120, E = (1 << 19) + 1025 };
	int *a = malloc(A * 4), *b = malloc(B * 4), *c = malloc(C * 4), *dd = malloc(D * 4), *e = malloc((size_t)E * 4);
	long sum = 0;
	for (int i = 0; i < E; i++) {
		if (i < A) a[i] = i;
		if (i < B) b[i] = 2 * i;
		if (i < C) c[i] = 3 * i;
		if (i < D) dd[i] = 5 * i;
		e[i] = 7 * i;
	}
	for (int it = 0; it < 2; it++) {
#pragma omp target map(tofrom: a[0:A], b[0:B], c[0:C], dd[0:D], e[0:E])
		{
			a[0]++, b[1]++, c[2]++, dd[3]++, e[4]++;
		}
	}
	sum = a[0] + b[1] + c[2] + dd[3] + e[4];
	printf("prog: %ld\n", sum);
	free(a), free(b), free(c), free(dd), free(e);
	return 0;
}
C
compile_offload prog.c prog -O1

aes=0
grep -qw aes /proc/cpuinfo && grep -qw sse4_1 /proc/cpuinfo && aes=1
record_prog aes.db ./prog >/dev/null
MAPPROF_HASH=xxh3 record_prog xxh3.db ./prog >/dev/null
assert_eq "$(q xxh3.db "SELECT value FROM stats WHERE name = 'hash_function'")" 1 "stats.hash_function under MAPPROF_HASH=xxh3"
if [ "$aes" = 1 ]; then
	assert_eq "$(q aes.db "SELECT value FROM stats WHERE name = 'hash_function'")" 2 "stats.hash_function on a CPU with AES"
else
	assert_eq "$(q aes.db "SELECT value FROM stats WHERE name = 'hash_function'")" 1 "stats.hash_function on a CPU without AES"
fi

# Each recording hashes as the tracer does under the same setting.
tracer_run aes.trace ./prog >/dev/null || fail "the program failed under the tracer"
MAPPROF_HASH=xxh3 tracer_run xxh3.trace ./prog >/dev/null || fail "the program failed under the tracer"
n=$(db_contents aes.db | wc -l)
[ "$n" -ge 20 ] || fail "too few hashed transfers: $n"
assert_eq "$(db_contents aes.db)" "$(tracer_contents aes.trace)" "transfers (op|bytes|hash), default hash vs the tracer"
assert_eq "$(db_contents xxh3.db)" "$(tracer_contents xxh3.trace)" "transfers (op|bytes|hash), MAPPROF_HASH=xxh3 vs the tracer"

# Below 4 KiB the two agree; from 4 KiB they differ (on a CPU with AES).
for bytes in 400 4000 4096 20480 2101252; do
	x=$(q aes.db "SELECT group_concat(hash) FROM (SELECT hash FROM data_ops WHERE bytes = $bytes AND hash IS NOT NULL ORDER BY seq)")
	y=$(q xxh3.db "SELECT group_concat(hash) FROM (SELECT hash FROM data_ops WHERE bytes = $bytes AND hash IS NOT NULL ORDER BY seq)")
	[ -n "$x" ] || fail "no hashed transfer of $bytes bytes"
	if [ "$bytes" -lt 4096 ] || [ "$aes" = 0 ]; then
		assert_eq "$x" "$y" "hashes of $bytes-byte transfers, aeshash and XXH3 settings"
	else
		[ "$x" != "$y" ] || fail "$bytes-byte transfers hashed the same with aeshash and with XXH3"
	fi
done
# 'mapprof diff' never compares hashes of two definitions: the results are not comparable, not different.
"$MAPPROF_BUILD/mapprof" diff aes.db xxh3.db >diff.out 2>diff.err || fail "mapprof diff failed: $(cat diff.err)"
if [ "$aes" = 1 ]; then
	grep -q '^results: not comparable: .*hashed by another definition' diff.out ||
		fail "diff of an aeshash and an XXH3 recording: $(grep '^results' diff.out)"
else
	grep -q '^results: identical' diff.out || fail "diff of two XXH3 recordings: $(grep '^results' diff.out)"
fi
[ "$aes" = 1 ] || { echo "SKIP: no AES instructions on this CPU: aeshash not exercised"; exit 77; }
echo "ok: aeshash from 4 KiB (hash_function 2), XXH3 under MAPPROF_HASH=xxh3 (1), both as the tracer hashes"
