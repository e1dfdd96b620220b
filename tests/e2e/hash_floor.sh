#!/usr/bin/env bash
# hash_floor.sh - the bench's hash-everything floor (bench/hash_floor.c,
# issue 29) sees what mapprof sees: recorded with it, a program's data ops
# of each kind, its kernels and its constructs are as many as mapprof's
# database holds, and every transfer's (op, bytes, hash) is one of mapprof's
# (the floor hashes as the collector does), small transfers and chunked
# ones, an unchanged array sent again and arrays of 1 MiB and more (which
# mapprof hashes with helper threads or reuses).  HASH_FLOOR_VERBOSE=1 says
# the same counts on stderr.
. "$(dirname "$0")/lib.sh"
floor=$MAPPROF_BUILD/bench/libhash-floor.so
[ -f "$floor" ] || fail "no hash floor '$floor' (hint: make build-tools)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	enum { SMALL = 1000, MID = 5000, BIG = 1 << 19 };  /* 4 KiB, 20 KiB, 2 MiB of ints... */
	int *s = malloc(SMALL * sizeof(int)), *m = malloc(MID * sizeof(int));
	double *b = malloc(BIG * sizeof(double));
	long sum = 0;
	for (int i = 0; i < SMALL; i++) s[i] = i;
	for (int i = 0; i < MID; i++) m[i] = 3 * i;
	for (int i = 0; i < BIG; i++) b[i] = i * 0.5;
	for (int it = 0; it < 3; it++) {
#pragma omp target teams distribute parallel for map(tofrom: s[0:SMALL]) map(to: m[0:MID])
		for (int i = 0; i < SMALL; i++) s[i] += m[i];
		/* b goes out unchanged every time, and comes back changed on the last. */
#pragma omp target teams distribute parallel for map(tofrom: b[0:BIG])
		for (int i = 0; i < BIG; i++) if (it == 2) b[i] += 1;
	}
#pragma omp target data map(to: m[0:MID]) map(from: s[0:SMALL])
	{
#pragma omp target teams distribute parallel for
		for (int i = 0; i < SMALL; i++) s[i] = m[i] + 1;
#pragma omp target update from(s[0:SMALL])
	}
	for (int i = 0; i < SMALL; i++) sum += s[i];
	printf("prog: %ld %.1f\n", sum, b[7]);
	free(s), free(m), free(b);
	return 0;
}
C
compile_offload prog.c prog -O1

HASH_FLOOR_OUT=$d/floor.bin HASH_FLOOR_VERBOSE=1 OMP_TOOL_LIBRARIES=$floor ./prog >floor.out 2>floor.err ||
	fail "the program failed under the hash floor: $(cat floor.err)"
[ -s floor.bin ] || fail "the hash floor wrote no events file"
record_prog run.db ./prog >rec.out
cmp -s floor.out rec.out || fail "the program printed other results under the floor and under mapprof"

# The floor's events file: "HFLOOR1\0", the event size, then struct event
# (bench/hash_floor.c): one line per event "TYPE KIND BYTES HASH|-".
"$PYTHON" - floor.bin >floor.txt <<'PY' || fail "cannot read the floor's events file"
import struct, sys
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'HFLOOR1\0', 'bad magic'
size = struct.unpack_from('I', d, 8)[0]
fmt = '<BBBBiiIQQqqQQQQQ'
assert struct.calcsize(fmt) == size, (struct.calcsize(fmt), size)
for off in range(12, len(d) - size + 1, size):
    t, kind, has, _, sd, dd, teams, seq, tid, b, e, sa, da, n, h, cp = struct.unpack_from(fmt, d, off)
    print(t, kind, n, '%016x' % h if has else '-')
PY

# Counts: data ops of each kind, kernels, constructs.
got=$(awk '$1 == 1 { print "op", $2 } $1 == 2 { print "kernel" } $1 == 3 { print "target" }' floor.txt | sort | uniq -c | awk '{ $1 = $1; print }')
want=$(q run.db "SELECT 'op ' || kind, COUNT(*) FROM data_op_raw GROUP BY kind
                 UNION ALL SELECT 'kernel', COUNT(*) FROM kernel_raw
                 UNION ALL SELECT 'target', COUNT(*) FROM target_raw" |
	awk -F'|' '{ print $2, $1 }' | sort)
[ -n "$want" ] || fail "mapprof recorded nothing"
assert_eq "$(echo "$got" | sort)" "$want" "events of each kind, hash floor vs mapprof"

# Transfers: the same (kind, bytes, hash), one for one.
got=$(awk '$1 == 1 && $4 != "-" { print $2, $3, $4 }' floor.txt | sort)
want=$(q run.db "SELECT kind, bytes, printf('%016x', hash) FROM data_op_raw WHERE hash IS NOT NULL" |
	tr '|' ' ' | sort)
[ "$(echo "$want" | wc -l)" -ge 12 ] || fail "mapprof hashed too few transfers: $want"
assert_eq "$got" "$want" "hashed transfers (kind bytes hash), hash floor vs mapprof"
grep -q ' 4194304 ' <<<"$got" || fail "no 4 MiB transfer hashed by the floor"

# What it says under HASH_FLOOR_VERBOSE=1.
ops=$(q run.db "SELECT COUNT(*) FROM data_op_raw")
bytes=$(awk '$1 == 1 && $4 != "-" { s += $3 } END { printf "%d", s }' floor.txt)
grep -q "^hash-floor: [0-9]* events ($ops data ops, [0-9]* kernels, [0-9]* targets), $bytes bytes hashed\$" floor.err ||
	fail "HASH_FLOOR_VERBOSE=1 said '$(cat floor.err)', want $ops data ops and $bytes bytes"
echo "ok: hash floor and mapprof agree ($ops data ops, $bytes bytes hashed)"

# The realistic suite of 'make bench' (bench/run.sh real) runs the hash floor
# as a fourth side and says recorded/hash-floor per program: here on a small
# naive/fixed pair of its own, two runs each.
b=$d/bench-build
mkdir -p "$b/bench/real" || fail "cannot make $b"
ln -s "$MAPPROF_BUILD/mapprof" "$b/mapprof"
for f in libmapprof-collector.so libmapprof-ingest.so; do ln -s "$MAPPROF_BUILD/$f" "$b/$f"; done
for f in timeit bootstrap libempty-tool.so libhash-floor.so; do
	[ -e "$MAPPROF_BUILD/bench/$f" ] || fail "no '$MAPPROF_BUILD/bench/$f' (hint: make build-tools)"
	ln -s "$MAPPROF_BUILD/bench/$f" "$b/bench/$f"
done
cp prog "$b/bench/real/tiny.naive" && cp prog "$b/bench/real/tiny.fixed" || fail "cannot copy prog"
BENCH_REAL_RUNS=2 BENCH_REAL_MIN_S=0 bash "$MAPPROF_SRC/bench/run.sh" "$b" real >bench.out 2>bench.err ||
	fail "bench/run.sh real failed: $(cat bench.err)"
grep -q 'recorded/hash-floor' bench.out || fail "no recorded/hash-floor column: $(cat bench.out)"
grep -Eq '^tiny\.naive +[0-9.]+ +[0-9.]+ \([0-9.]+-[0-9.]+\) +[0-9.]+ \([0-9.]+-[0-9.]+\) +[-+][0-9.]+ +[0-9.]+ \([0-9.]+-[0-9.]+\) ' bench.out ||
	fail "tiny.naive's row has no recorded/hash-floor ratio: $(grep tiny.naive bench.out)"
grep -q '^recorded over the hash-everything floor .*: [0-9.]* (95% bootstrap interval' bench.out ||
	fail "no geometric mean over the hash floor: $(cat bench.out)"
# Every iteration timed the hash floor too (its wall time, the tenth field).
awk 'NF != 10 || !($10 > 0) { bad = 1 } END { exit bad || NR != 4 }' "$b/bench/real-runs.txt" ||
	fail "real-runs.txt lacks the hash floor's times: $(cat "$b/bench/real-runs.txt")"
# A short program gets more rounds while its rounds took under the minimum,
# never past the cap: two asked, an hour's minimum, at most five -> five.
BENCH_REAL_RUNS=2 BENCH_REAL_MIN_S=3600 BENCH_REAL_RUNS_MAX=5 bash "$MAPPROF_SRC/bench/run.sh" "$b" real \
	>bench2.out 2>bench2.err || fail "bench/run.sh real (more rounds) failed: $(cat bench2.err)"
n=$(awk '$1 == "tiny.naive"' "$b/bench/real-runs.txt" | wc -l)
[ "$n" = 5 ] || fail "tiny.naive ran $n rounds, not 5 (2 asked, more up to 5 while under an hour)"
awk '$1 == "tiny.fixed" && NF == 14 && $14 == 5 { ok = 1 } END { exit !ok }' bench2.out ||
	fail "the table's runs column does not say 5: $(grep tiny bench2.out)"
echo "ok: the realistic suite says recorded/hash-floor; a short program gets more rounds, up to the cap"
