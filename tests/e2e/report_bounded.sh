#!/usr/bin/env bash
# report_bounded.sh - 'mapprof report' in bounded memory (issue 27): the
# findings' operations, the duplicate detector's contents and the
# timeline's allocation endpoints go through temporary files past a
# buffer, and nothing else is kept per event.  Checked:
#   - a synthetic run of 200,000 events (bench/gen_events.sh) gives the
#     findings of the report code before (commit 90f4098, kept in
#     tests/golden/bounded/: kinds, fingerprints, occurrences, bytes,
#     savings, listed events; the summary; each plan's savings; the savings
#     since transfers are priced at the run's median and first copies into
#     fresh memory at their trimmed mean), and says
#     how many events each finding leaves out of its list;
#   - with buffers of a few hundred records (MAPPROF_REPORT_BUFFER), so that
#     everything goes through the files, report.json, the page's document
#     (timeline included) and the stored finding events are the same as in
#     memory: on that run and on a recorded sample;
#   - peak RSS does not grow with the run: three times the events, a few
#     MiB more at most (before: ~47 MiB more, ~100 bytes an event).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v "$PYTHON" >/dev/null || skip "$PYTHON is missing"
dir=$(tmpdir)
cd "$dir"
mkdir tmp

findings() {
	"$PYTHON" "$MAPPROF_SRC/tests/e2e/report_bounded_findings.py" "$1"
}
page_doc() {
	sed -n 's/.*<script type="application\/json" id="mapprof-data">\(.*\)<\/script>.*/\1/p' "$1"
}
stored() {
	sqlite3 "$1" "SELECT COUNT(*), SUM(finding * 7 + occurrence * 3 + seq), group_concat(DISTINCT role)
		      FROM finding_event_raw; SELECT group_concat(fingerprint || ':' || occurrences || ':' ||
		      savings_ns, ' ') FROM (SELECT * FROM finding_raw ORDER BY id)"
}

# The same run in memory and through the files: every output the same.
same_both_ways() {   # NAME DB
	cp "$2" "$1.mem.db"
	cp "$2" "$1.spill.db"
	"$mapprof" report -q --json "$1.mem.json" --html "$1.mem.html" "$1.mem.db" 2>err ||
		fail "report of $1: $(cat err)"
	MAPPROF_REPORT_BUFFER=300 TMPDIR=$dir/tmp "$mapprof" report -q --json "$1.spill.json" \
		--html "$1.spill.html" "$1.spill.db" 2>err || fail "report of $1 with small buffers: $(cat err)"
	assert_eq "$(jq -S -c . "$1.spill.json")" "$(jq -S -c . "$1.mem.json")" "$1: report.json through the files"
	assert_eq "$(page_doc "$1.spill.html" | jq -S -c 'del(.generator)')" \
		"$(page_doc "$1.mem.html" | jq -S -c 'del(.generator)')" "$1: the page's document through the files"
	assert_eq "$(stored "$1.spill.db")" "$(stored "$1.mem.db")" "$1: the stored findings through the files"
	[ -z "$(ls tmp)" ] || fail "$1: temporary files left: $(ls tmp)"
}

# A synthetic run of 22,222 iterations (199,998 events).
bash "$MAPPROF_SRC/bench/gen_events.sh" gen.db 22222
same_both_ways gen gen.db
findings gen.mem.json >gen.findings
diff -u "$MAPPROF_SRC/tests/golden/bounded/gen_events_22222.txt" gen.findings >gen.diff ||
	fail "the findings differ from those of the report before: $(head -20 gen.diff)"
# Finding 3: 5,555 transfers, the first 1,000 listed.
assert_eq "$(jq -c '.findings[2] | [.occurrences, (.events | length), .events_truncated, .events_left_out]' gen.mem.json)" \
	"[5555,1000,true,4555]" "a finding's listed events and those left out"
assert_eq "$(jq '[.findings[] | select(.events_truncated == false and .events_left_out != 0)] | length' gen.mem.json)" \
	0 "nothing left out of a complete list"

# A recorded sample.
"$mapprof" record -o rec.db -- "$MAPPROF_BUILD/samples/jacobi_like" >/dev/null 2>rec.err ||
	fail "record jacobi_like: $(cat rec.err)"
same_both_ways rec rec.db
[ "$(jq '.findings | length' rec.mem.json)" -ge 1 ] || fail "jacobi_like has no findings"

# Peak RSS against the run's length: 200,000 and 600,000 events.
if [ -x /usr/bin/time ] && rss_checked; then
	bash "$MAPPROF_SRC/bench/gen_events.sh" gen3.db 66666
	for n in gen gen3; do
		cp "$n.db" "$n.rss.db"
		MAPPROF_REPORT_BUFFER=2000 TMPDIR=$dir/tmp /usr/bin/time -o "$n.rss" -f '%M' \
			"$mapprof" report -q --json "$n.rss.json" --html "$n.rss.html" "$n.rss.db" 2>err ||
			fail "report of $n for its RSS: $(cat err)"
	done
	small=$(tail -1 gen.rss) big=$(tail -1 gen3.rss)
	echo "peak RSS: $small KiB at 200,000 events, $big KiB at 600,000"
	[ "$big" -le $((small + 24 * 1024)) ] ||
		fail "peak RSS grows with the run: $small KiB at 200,000 events, $big KiB at 600,000"
fi
echo "ok: report in bounded memory"
