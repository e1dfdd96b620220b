#!/usr/bin/env bash
# report_procs.sh - 'mapprof report' over several databases: the processes
# of one recording (a program and its forked child), and 1,000 rank
# databases (copies of one recording, each with its own pid and rank) in
# bounded memory: the findings merged by fingerprint, the summary naming the
# ranks, report.json's 'processes' and 'merged_findings', and report.html
# embedding that document (bounded in size too).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
dir=$(tmpdir)
cd "$dir"

# A program and its child: two processes, each its own findings.
"$mapprof" record -o fork.db -- "$MAPPROF_BUILD/samples/procs/fork_child" >/dev/null 2>rec.err ||
	fail "record fork_child: $(cat rec.err)"
dbs=(fork*.db)
"$mapprof" report --json fork.json "${dbs[@]}" >sum.out 2>rep.err || fail "report of two: $(cat rep.err)"
grep -q "^2 processes: 26 data operations, 5 kernels" sum.out || fail "summary: $(cat sum.out)"
assert_eq "$(jq '.processes | length' fork.json)" 2 "processes in report.json"
assert_eq "$(jq -r '[.processes[].started] | sort | join(",")' fork.json)" "fork,record" "processes' starts"
assert_eq "$(jq '[.processes[].data_ops] | add' fork.json)" 26 "data operations in report.json"
[ "$(jq '.merged_findings | length' fork.json)" -ge 1 ] || fail "no merged findings: $(cat sum.out)"
# report.html of several databases: the merged document, embedded (the
# page's processes view, static/js/procs.js; tests/browser checks it renders).
[ -s report.html ] || fail "no report.html beside the first database"
"$mapprof" report -q --no-json --html x.html "${dbs[@]}" 2>rep.err || fail "--html of two: $(cat rep.err)"
page_doc() {
	sed -n 's/.*<script type="application\/json" id="mapprof-data">\(.*\)<\/script>.*/\1/p' "$1"
}
assert_eq "$(page_doc x.html | jq -c '[(.processes | length), (.merged_findings | length), has("findings")]')" \
	"[2,$(jq '.merged_findings | length' fork.json),false]" "report.html's document"
assert_eq "$(page_doc x.html | jq -S -c 'del(.timeline, .generator)')" "$(jq -S -c . fork.json)" \
	"report.html embeds report.json's document"
rc=0
"$mapprof" report -q --no-json --html "${dbs[1]}" "${dbs[@]}" 2>rep.err || rc=$?
assert_eq "$rc" 2 "--html naming one of the databases"
grep -q "is the database" rep.err || fail "--html onto a database: $(cat rep.err)"
echo "ok two processes of one recording"

# 1,000 ranks: one real recording copied, each copy another pid and rank.
N=${MAPPROF_TEST_RANKS:-1000}
"$mapprof" record -o base.db -- "$MAPPROF_BUILD/samples/duplicate_transfer" >/dev/null 2>rec.err ||
	fail "record duplicate_transfer: $(cat rec.err)"
"$mapprof" report -q --no-html --json base.json base.db 2>/dev/null || fail "report of base.db"
{
	for i in $(seq 0 $((N - 1))); do
		cp base.db "r.$i.db"
		echo "ATTACH 'r.$i.db' AS x; PRAGMA x.synchronous = OFF;"
		echo "UPDATE x.process_raw SET pid = $((100000 + i)), rank = $i, rank_var = 'PMIX_RANK'; DETACH x;"
	done
} >update.sql
sqlite3 -batch ':memory:' <update.sql || fail "cannot make the rank databases"
[ -x /usr/bin/time ] || skip "no /usr/bin/time for the 1,000-database report's peak RSS (apt-get install time)"
start=$(date +%s.%N)
/usr/bin/time -f '%M' -o rss "$mapprof" report --json merged.json --html merged.html r.*.db >sum.out 2>rep.err ||
	fail "report of $N databases: $(cat rep.err)"
secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
rss=$(tail -1 rss)
assert_eq "$(jq '.processes | length' merged.json)" "$N" "processes in report.json"
# Every finding of the one recording, once, found in every rank, N times its count.
want=$(jq -r '.findings[] | "\(.fingerprint) \(.occurrences)"' base.json | sort)
got=$(jq -r --argjson n "$N" '.merged_findings[] | select(.processes == $n and (.ranks | length) == $n)
	| "\(.fingerprint) \(.occurrences / $n)"' merged.json | sort)
assert_eq "$got" "$want" "merged findings: fingerprint and occurrences per rank"
grep -q "on ranks 0-$((N - 1)) ($N processes), $N x 1 occurrences" sum.out ||
	fail "summary does not name the ranks: $(cat sum.out)"
# Bounded: a few KiB per process over one database's report, not its events.
! rss_checked || [ "$rss" -lt 65536 ] || fail "report of $N databases took $rss KiB"
# The page holds summaries only: its assets (about 85 KiB) and under 512 bytes a process.
html_kib=$(( $(stat -c %s merged.html) / 1024 ))
[ "$html_kib" -lt $((128 + N / 2)) ] || fail "report.html of $N databases is $html_kib KiB"
assert_eq "$(page_doc merged.html | jq '.processes | length')" "$N" "processes in report.html"
echo "ok $N rank databases: ${secs} s, max RSS ${rss} KiB, report.html ${html_kib} KiB"
