#!/usr/bin/env bash
# detect_fuzz.sh - the detectors against a brute-force oracle of the
# definitions (tests/fuzz/oracle.py) on random small runs (tests/fuzz/gen.py):
# the five occurrence counts that 'mapprof report' stores must be equal.
# FUZZ_SEEDS (default 60) runs; a failing seed is printed for replay:
#   python3 tests/fuzz/gen.py SEED x.db && python3 tests/fuzz/oracle.py x.db
. "$(dirname "$0")/lib.sh"

bin=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON' (apt-get install python3)"
dir=$(tmpdir)
for seed in $(seq 1 "${FUZZ_SEEDS:-60}"); do
	"$PYTHON" "$MAPPROF_SRC/tests/fuzz/gen.py" "$seed" "$dir/f.db" || fail "gen.py failed (seed $seed)"
	want=$("$PYTHON" "$MAPPROF_SRC/tests/fuzz/oracle.py" "$dir/f.db") || fail "oracle failed (seed $seed)"
	"$bin" report -q --no-json --no-html "$dir/f.db" 2>/dev/null || fail "report failed (seed $seed)"
	got=$(q "$dir/f.db" "SELECT group_concat(kind || '=' || occurrences, ' ') FROM
		(SELECT kind, occurrences FROM finding_summary WHERE kind != 'all' ORDER BY
		 CASE kind WHEN 'duplicate_transfer' THEN 1 WHEN 'round_trip' THEN 2
			   WHEN 'repeated_alloc' THEN 3 WHEN 'unused_alloc' THEN 4 ELSE 5 END)")
	assert_eq "$got" "$want" "occurrences, seed $seed"
done
echo "$seed seeds agree"
