#!/usr/bin/env bash
# record_leftovers.sh - record and recover leave nothing behind, and take
# no empty size (issue 23, items 15 and 14):
#   - a program that never loads the collector (no OpenMP) leaves no spool
#     (it left a 24-byte DB-spool) and no spool directory;
#   - recover of a killed record's spool removes the empty spool directory
#     record made beside the database (it left DB.spool.d);
#   - --max-spool '' is a usage error (exit 2), not 'the default';
#   - a zero-length RECORDS frame (a buffer written empty) expands to
#     nothing, without memcpy(NULL, ..., 0) (UBSan, under SANITIZE).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# --- no collector ----------------------------------------------------------------
"$mapprof" record -o nc.db -- true 2>nc.err || { cat nc.err >&2; fail "record of 'true' failed"; }
assert_eq "$(q nc.db "SELECT status FROM run")" no-collector "the status of a run without OpenMP"
assert_eq "$(ls -d nc.db?* 2>/dev/null)" "" "files left beside nc.db"

# --- --max-spool '' --------------------------------------------------------------------
rc=0
"$mapprof" record --max-spool '' -o ms.db -- true 2>ms.err || rc=$?
assert_eq "$rc" 2 "exit status of record --max-spool ''"
grep -q '^mapprof: error: .*max-spool' ms.err || { cat ms.err >&2; fail "no error naming --max-spool"; }
assert_eq "$(ls -d ms.db* 2>/dev/null)" "" "files left by record --max-spool ''"

# --- recover removes the empty spool directory -------------------------------------
cat >loop.c <<'C'
#include <unistd.h>
int main(void)
{
	double x = 0;
	for (int i = 0; i < 20000; i++) {
#pragma omp target map(tofrom: x)
		x += 1;
		usleep(100);
	}
	return 0;
}
C
compile_offload loop.c loop -O1
"$mapprof" record -o k.db -- ./loop 2>k.err &
rec=$!
for _ in $(seq 200); do [ "$(stat -c %s k.db-spool 2>/dev/null || echo 0)" -gt 50000 ] && break; sleep 0.02; done
kill -9 "$rec"
wait "$rec" 2>/dev/null
[ -d k.db.spool.d ] || fail "record made no spool directory (the test's premise)"
"$mapprof" recover k.db-spool 2>r.err || { cat r.err >&2; fail "recover failed"; }
assert_eq "$(ls -d k.db?* 2>/dev/null)" "" "files left beside k.db after recover"

# --- a zero-length RECORDS frame -----------------------------------------------------------
OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/libmapprof-collector.so MAPPROF_SPOOL=$d/z.spool \
	"$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>z.err || { cat z.err >&2; fail "round_trip by hand"; }
# After the header and again after the first frame: { type 1 (RECORDS), len 0 }.
"$PYTHON" - z.spool <<'PY' || fail "cannot write the zero-length frames"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
first = 24 + 8 + struct.unpack_from('<I', d, 28)[0]
empty = struct.pack('<II', 1, 0)
d = d[:24] + empty + d[24:first] + empty + d[first:]
open(sys.argv[1], 'wb').write(d)
PY
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$mapprof" recover -o z.db z.spool 2>z.err ||
	{ cat z.err >&2; fail "recover of a spool with zero-length RECORDS frames"; }
! grep -q 'runtime error' z.err || { cat z.err >&2; fail "UBSan on a zero-length RECORDS frame"; }
assert_eq "$(q z.db "SELECT COUNT(*) FROM target_raw")" 5 "round_trip's target constructs"
echo ok
