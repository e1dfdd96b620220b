#!/usr/bin/env bash
# trace_order.sh - 'mapprof trace' reads the finding rows in the order
# 'mapprof report' stored them (time order, no sort: issue 27's speed) and
# sorts only when they are not: on a reported synthetic run of
# bench/gen_events.sh (200 k events), a database whose finding_event_raw is
# stored finding by finding (an older report's order) gives the same trace,
# byte for byte, in both formats, as do standard output (always sorted) and
# a window.  The trace's speed is measured by 'make bench-large' (its trace
# lines), not here.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

iters=${TRACE_TEST_ITERS:-22222}
bash "$MAPPROF_SRC/bench/gen_events.sh" s.db "$iters" || fail "gen_events.sh $iters failed"
"$mapprof" report -q --no-json --no-html s.db 2>err || fail "report of s.db failed: $(cat err)"

# The same trace from finding rows stored in another order, to standard output, and in a window.
cp s.db shuffled.db || fail "cannot copy s.db"
q shuffled.db "CREATE TEMP TABLE x AS SELECT * FROM finding_event_raw ORDER BY finding, occurrence DESC;
	DELETE FROM finding_event_raw; INSERT INTO finding_event_raw SELECT * FROM x;"
[ "$(q s.db 'SELECT COUNT(*) FROM finding_event_raw')" -gt 1000 ] || fail "the synthetic run has no findings"
for fmt in json pftrace; do
	"$mapprof" trace -o "s.$fmt" s.db 2>err || fail "trace s.db ($fmt): $(cat err)"
	"$mapprof" trace -o "shuffled.$fmt" shuffled.db 2>err || fail "trace shuffled.db ($fmt): $(cat err)"
	cmp -s "s.$fmt" "shuffled.$fmt" || fail "$fmt: finding rows stored in another order give another trace"
	"$mapprof" trace --format "$fmt" -o - s.db >"stdout.$fmt" 2>err || fail "trace -o - ($fmt): $(cat err)"
	cmp -s "s.$fmt" "stdout.$fmt" || fail "$fmt: standard output (sorted rows) differs from the file"
	"$mapprof" trace --from 2ms --to 5ms -o "w.$fmt" s.db 2>err || fail "trace --from ($fmt): $(cat err)"
	"$mapprof" trace --from 2ms --to 5ms -o "ws.$fmt" shuffled.db 2>err || fail "trace --from ($fmt): $(cat err)"
	cmp -s "w.$fmt" "ws.$fmt" || fail "$fmt: a window of finding rows stored in another order differs"
done
grep -q '"ph":"s","id"' s.json || fail "the synthetic trace has no finding arrows"
echo "ok: stored, shuffled, standard output and windowed finding rows give the same traces"
