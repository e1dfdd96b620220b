#!/usr/bin/env bash
# report_one_pass.sh - 'mapprof report' reads the event tables once (issue
# 27): the events are read on a thread of their own while the
# analysis runs, and the page timeline's intervals are recorded as the rows
# go by (a temporary file) instead of read again.  MAPPROF_REPORT_SERIAL=1
# is the way before (one thread, the timeline's own pass).  Checked, both
# ways, byte for byte: report.json, the page and the stored findings, on
#   - a synthetic run (bench/gen_events.sh), and the same run edited into
#     the timeline's odd cases: an allocation freed twice, a delete before
#     its allocation, a damaged delete (its lifetime never ends), damaged
#     kernels and transfers, threads that are not integers, allocations
#     never freed;
#   - a run with an event far out of order (the analysis' stream starts
#     again sorted; the timeline then reads the tables itself);
#   - a recorded sample;
#   - with buffers of a few hundred records (MAPPROF_REPORT_BUFFER), so
#     that every sorter and the recorded timeline use their files, none of
#     which is left behind.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
dir=$(tmpdir)
cd "$dir"
mkdir tmp

stored() {
	sqlite3 "$1" "SELECT COUNT(*), SUM(finding * 7 + occurrence * 3 + seq), group_concat(DISTINCT role)
		      FROM finding_event_raw; SELECT group_concat(fingerprint || ':' || occurrences || ':' ||
		      savings_ns, ' ') FROM (SELECT * FROM finding_raw ORDER BY id)"
}

both_ways() {   # NAME DB [ENV...]
	local name=$1 db=$2
	shift 2
	cp "$db" "$name.new.db"
	cp "$db" "$name.old.db"
	env "$@" TMPDIR="$dir/tmp" "$mapprof" report -q --json "$name.new.json" --html "$name.new.html" \
		"$name.new.db" 2>err || fail "report of $name: $(cat err)"
	env "$@" MAPPROF_REPORT_SERIAL=1 TMPDIR="$dir/tmp" "$mapprof" report -q --json "$name.old.json" \
		--html "$name.old.html" "$name.old.db" 2>err || fail "serial report of $name: $(cat err)"
	cmp -s "$name.new.json" "$name.old.json" || fail "$name: report.json differs from the serial one"
	cmp -s "$name.new.html" "$name.old.html" || fail "$name: the page differs from the serial one"
	assert_eq "$(stored "$name.new.db")" "$(stored "$name.old.db")" "$name: the stored findings"
	[ -z "$(ls tmp)" ] || fail "$name: temporary files left: $(ls tmp)"
}

# A synthetic run of 5,000 iterations (45,000 events).
bash "$MAPPROF_SRC/bench/gen_events.sh" gen.db 5000
both_ways gen gen.db
both_ways gen-small gen.db MAPPROF_REPORT_BUFFER=300
grep -q '"marks":\[\[' gen.new.html || fail "the page has no marks"

# The timeline's odd cases.
cp gen.db odd.db
sqlite3 odd.db "
	-- allocation 1 freed twice: a second pair on another delete
	UPDATE delete_pair_raw SET alloc_seq = 1 WHERE delete_seq = 17;
	-- a delete recorded before the allocation it frees
	INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (25, 46)
		ON CONFLICT (delete_seq) DO UPDATE SET alloc_seq = 46;
	-- a damaged delete (negative duration): its lifetime never ends
	UPDATE data_op_raw SET dur_ns = -5 WHERE seq = 98;
	-- damaged kernels and transfers
	UPDATE kernel_raw SET dur_ns = -1 WHERE seq % 97 = 5;
	UPDATE data_op_raw SET begin_ns = NULL WHERE seq % 89 = 2;
	-- threads that are not integers
	UPDATE kernel_raw SET thread = 'x' WHERE seq % 13 = 5;
	UPDATE data_op_raw SET thread = 2.5 WHERE seq % 11 = 3;
	-- allocations never freed
	DELETE FROM delete_pair_raw WHERE delete_seq % 50 = 8;
	DELETE FROM data_op_raw WHERE kind = 4 AND seq % 30 = 17;
	-- the extremes the rules let through (the recorded intervals are written as
	-- differences: large jumps either way, the largest sizes, threads, devices)
	UPDATE data_op_raw SET bytes = 2305843009213693951 WHERE kind = 2 AND seq % 101 = 7;
	UPDATE data_op_raw SET thread = 2147483647 WHERE seq % 103 = 1;
	UPDATE kernel_raw SET begin_ns = 2305843009213693000, dur_ns = 951 WHERE seq % 107 = 3;
	UPDATE data_op_raw SET dst_dev = 65535 WHERE kind = 1 AND seq % 109 = 1;"
both_ways odd odd.db
both_ways odd-small odd.db MAPPROF_REPORT_BUFFER=300

# An event far out of order: the stream starts again sorted, nothing is
# recorded, and the timeline reads its rows itself (on the reading thread).
cp gen.db late.db
sqlite3 late.db "UPDATE data_op_raw SET begin_ns = 5 WHERE seq = 40002"
both_ways late late.db

# A recorded sample.
"$mapprof" record -o rec.db -- "$MAPPROF_BUILD/samples/jacobi_like" >/dev/null 2>rec.err ||
	fail "record jacobi_like: $(cat rec.err)"
both_ways rec rec.db
echo "ok: report reads the events once, the same outputs as the serial way"
