#!/usr/bin/env bash
# trace_otf2.sh - 'mapprof trace -o run.otf2': OTF2 archives for Vampir and
# Score-P's tools (issue 50), read back by OTF2's own tools.
#
# - every sample (recorded, reported), a program of 'nowait' copies and
#   kernels that overlap (trace_otf2_nowait.c) and the synthetic run of
#   bench/gen_events.sh: 'otf2-print --silent' reads the archive (exit 0),
#   and trace_otf2_check.py reads it with python3-otf2 and holds it to the
#   database: per device the number and bytes of RmaGet / RmaPut are those
#   of data_ops' to_device / from_device rows, each completed; every Enter
#   has its Leave, nested; times rise on every location; regions of role
#   ALLOCATE / DEALLOCATE, kernels and target constructs as many as the
#   database has; as many streams per device as events overlap there; the
#   findings' attributes on their operations; the memory metric's peak;
#   otf2-print counts the same one-sided operations and bytes;
# - a 3-rank MPI job (samples/mpi/mpi_ranks.c, one database per rank): one
#   archive of every rank ('mapprof trace run.*.db -o job.otf2'), three
#   process groups, each rank's times moved by where its clock started;
# - --from/--to: only what overlaps the window (counted in SQL);
# - an archive replaces an empty directory or an archive of mapprof's, and
#   nothing else (a file, a directory of other files: exit 3, untouched);
#   '-o -' and several databases for another format are usage errors (2);
#   no temporary directory is left behind;
# - memory: the archive of a synthetic run of 3 M events needs less than
#   1.2x the peak RSS of one of 1.5 M (libotf2's buffers full in both;
#   trace_memory.sh holds it to the .pftrace's).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
check_py=$MAPPROF_SRC/tests/e2e/trace_otf2_check.py
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$MAPPROF_BUILD/samples/round_trip" ] || fail "no samples in '$MAPPROF_BUILD/samples' (hint: make samples)"
command -v otf2-print >/dev/null || skip "otf2-print is not installed (make test-deps: otf2-tools)"
"$PYTHON" -c 'import otf2' 2>/dev/null || skip "OTF2's Python reader is not installed (make test-deps: python3-otf2)"
command -v sqlite3 >/dev/null || skip "sqlite3 is not installed"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (apt-get install time)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
ALL_FROM=0
ALL_TO=9223372036854775807

# check ARCHIVE FROM_NS TO_NS DB...: otf2-print and python3-otf2 read it and
# agree with the databases; prints the checker's totals.
check() {
	local archive=$1 from=$2 to=$3 out gets puts bytes
	shift 3
	[ -f "$archive/traces.otf2" ] || fail "$archive: no traces.otf2"
	otf2-print --silent "$archive/traces.otf2" >/dev/null 2>err || fail "otf2-print --silent $archive: $(cat err)"
	out=$("$PYTHON" "$check_py" "$archive/traces.otf2" "$from" "$to" "$@" 2>&1) || fail "$archive: $out"
	# otf2-print's own reading: the same one-sided operations and bytes.
	otf2-print "$archive/traces.otf2" 2>/dev/null | awk '
		$1 == "RMA_GET" { g++ } $1 == "RMA_PUT" { p++ }
		$1 == "RMA_GET" || $1 == "RMA_PUT" { for (i = 1; i <= NF; i++) if ($i == "Bytes:") b += $(i + 1) }
		END { printf "gets=%d puts=%d bytes=%d\n", g, p, b }' >printed
	read -r gets puts bytes <<<"$(tr ' ' '\n' <<<"$out" | grep -E '^(gets|puts|bytes)=' | tr '\n' ' ')"
	assert_eq "$(cat printed)" "$gets $puts $bytes" "$archive: otf2-print's one-sided operations"
	echo "$out"
}

# Every sample, recorded and reported.
n=0
for prog in "$MAPPROF_BUILD"/samples/*; do
	[ -f "$prog" ] && [ -x "$prog" ] && [ "${prog%.so}" = "$prog" ] || continue
	name=$(basename "$prog")
	record_prog "$name.db" "$prog" >/dev/null
	"$mapprof" report -q --no-json --no-html "$name.db" 2>err || fail "report $name.db: $(cat err)"
	"$mapprof" trace -o "$name.otf2" "$name.db" 2>err || fail "trace $name.db: $(cat err)"
	grep -q "wrote '$name.otf2': 1 process," err || fail "trace $name.db said: $(cat err)"
	out=$(check "$name.otf2" $ALL_FROM $ALL_TO "$name.db") || exit 1
	echo "ok $name: $out"
	n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n samples"
# The findings: round_trip has some, and they are on its archive's events.
[ "$(q round_trip.db "SELECT COUNT(*) FROM finding_event_raw")" -gt 0 ] || fail "round_trip: no finding (the test's mistake)"
grep -q "[1-9][0-9]* events named by findings" <("$mapprof" trace -o rt2.otf2 round_trip.db 2>&1) ||
	fail "round_trip: no event named by a finding"

# Not reported: no source lines, no findings, and a hint that says so.
record_prog plain.db "$MAPPROF_BUILD/samples/two_devices" >/dev/null
"$mapprof" trace -o plain.otf2 plain.db 2>err || fail "trace plain.db: $(cat err)"
grep -q "hint: 'plain.db' holds no findings" err || fail "no hint for an unreported database: $(cat err)"
out=$(check plain.otf2 $ALL_FROM $ALL_TO plain.db) || exit 1
echo "ok unreported two_devices: $out"

# 'nowait' copies beside kernels: overlapping ones on streams of their own
# (the checker counts as many streams as events overlap at most).
compile_offload "$MAPPROF_SRC/tests/e2e/trace_otf2_nowait.c" nowait -g -O1
record_prog nowait.db ./nowait >/dev/null
"$mapprof" report -q --no-json --no-html nowait.db 2>/dev/null || fail "report nowait.db"
"$mapprof" trace -o nowait.otf2 nowait.db 2>err || fail "trace nowait.db: $(cat err)"
out=$(check nowait.otf2 $ALL_FROM $ALL_TO nowait.db) || exit 1
overlap=$(q nowait.db "SELECT COUNT(*) FROM data_ops a JOIN data_ops b ON a.seq < b.seq
	WHERE a.op LIKE '%device' AND b.op LIKE '%device' AND a.begin_ns < b.end_ns AND b.begin_ns < a.end_ns")
case $out in *max_streams=1) [ "$overlap" -eq 0 ] || fail "nowait: $overlap overlapping copies on one stream" ;; esac
echo "ok nowait: $out ($overlap overlapping pairs of copies)"

# A window: from the third transfer's end to the tenth's begin in jacobi_like.
from=$(q jacobi_like.db "SELECT end_ns FROM data_ops WHERE op LIKE '%device' ORDER BY begin_ns LIMIT 1 OFFSET 2")
to=$(q jacobi_like.db "SELECT begin_ns FROM data_ops WHERE op LIKE '%device' ORDER BY begin_ns LIMIT 1 OFFSET 9")
"$mapprof" trace --from "${from}ns" --to "${to}ns" -o win.otf2 jacobi_like.db 2>err || fail "trace --from/--to: $(cat err)"
out=$(check win.otf2 "$from" "$to" jacobi_like.db) || exit 1
case $out in "gets=0 puts=0 "*) fail "window ${from}ns..${to}ns: no transfer (the test's mistake)" ;; esac
echo "ok window ${from}ns..${to}ns: $out"

# Where an archive may go.
rc=0
"$mapprof" trace -o - --format otf2 round_trip.db >/dev/null 2>err || rc=$?
assert_eq "$rc" 2 "trace -o - --format otf2"
rc=0
"$mapprof" trace -o two.json round_trip.db jacobi_like.db 2>err || rc=$?
assert_eq "$rc" 2 "two databases into a JSON trace"
echo "not an archive" >file.otf2
rc=0
"$mapprof" trace -o file.otf2 round_trip.db 2>err || rc=$?
assert_eq "$rc" 3 "trace -o over a regular file"
assert_eq "$(cat file.otf2)" "not an archive" "the file trace refused to replace"
mkdir other.otf2 && echo keep >other.otf2/notes.txt
rc=0
"$mapprof" trace -o other.otf2 round_trip.db 2>err || rc=$?
assert_eq "$rc" 3 "trace -o over a directory of other files"
grep -q "not an OTF2 archive that mapprof wrote" err || fail "refusal said: $(cat err)"
assert_eq "$(ls other.otf2)" "notes.txt" "the directory trace refused to replace"
mkdir empty.otf2
"$mapprof" trace -o empty.otf2 round_trip.db 2>err || fail "trace -o an empty directory: $(cat err)"
check empty.otf2 $ALL_FROM $ALL_TO round_trip.db >/dev/null || exit 1
# An archive of ours is replaced: jacobi_like's now where round_trip's was.
"$mapprof" trace -o empty.otf2 jacobi_like.db 2>err || fail "trace over an archive: $(cat err)"
check empty.otf2 $ALL_FROM $ALL_TO jacobi_like.db >/dev/null || exit 1
ln -s /nonexistent/elsewhere link.otf2
"$mapprof" trace -o link.otf2 round_trip.db 2>err || fail "trace over a symlink: $(cat err)"
[ -d link.otf2 ] && [ ! -L link.otf2 ] || fail "the symlink was not replaced by the archive"
left=$(find . -maxdepth 1 -name '.*tmp-*')
[ -z "$left" ] || fail "temporary directories left: $left"
echo "ok outputs: '-o -' and two databases for JSON refused (2); a file and a foreign directory untouched (3)"

# A 3-rank MPI job: one archive of every rank.
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
		-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
		fail "cannot build samples/mpi/mpi_ranks.c with mpicc"
	timeout 120 mpirun --oversubscribe --allow-run-as-root -n 3 "$mapprof" record -o 'rank.%r.db' -- \
		./mpi_ranks >/dev/null 2>rec.err || fail "mpirun mapprof record: $(cat rec.err)"
	"$mapprof" report -q --no-json --no-html rank.*.db 2>err >/dev/null || fail "report rank.*.db: $(cat err)"
	"$mapprof" trace rank.*.db -o job.otf2 2>err || fail "trace rank.*.db: $(cat err)"
	grep -q "wrote 'job.otf2': 3 processes," err || fail "trace rank.*.db said: $(cat err)"
	out=$(check job.otf2 $ALL_FROM $ALL_TO rank.0.db rank.1.db rank.2.db) || exit 1
	groups=$(otf2-print -G job.otf2/traces.otf2 2>/dev/null | grep -c '^LOCATION_GROUP .*Type: PROCESS')
	assert_eq "$groups" 3 "process location groups of the 3-rank job"
	echo "ok 3-rank MPI job: $out"
else
	echo "note: Open MPI is missing (make test-deps): the 3-rank archive is not checked"
fi

# The synthetic run (~50 k events on two threads and two devices) read
# back whole; then memory: the events wait in a temporary file and libotf2
# writes one location at a time (its chunk and its file's buffer full past
# a few hundred thousand events), so twice the events need the same memory.
iters=${TRACE_TEST_ITERS:-5555}
bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/s.db" "$iters" || fail "gen_events.sh $iters failed"
"$mapprof" report -q --no-json --no-html s.db 2>/dev/null || fail "report of s.db failed"
"$mapprof" trace -o s.otf2 s.db 2>/dev/null || fail "trace s.db failed"
out=$(check s.otf2 $ALL_FROM $ALL_TO s.db) || exit 1
echo "ok synthetic: $out"
bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/m.db" $((iters * 30)) || fail "gen_events.sh failed"
/usr/bin/time -f '%e %M' -o time1 "$mapprof" trace -o m.otf2 m.db 2>/dev/null || fail "trace m.db failed"
rm -f m.db m.otf2/traces/*.evt
bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/big.db" $((iters * 60)) || fail "gen_events.sh failed"
/usr/bin/time -f '%e %M' -o time2 "$mapprof" trace -o big.otf2 big.db 2>/dev/null || fail "trace big.db failed"
otf2-print --silent big.otf2/traces.otf2 >/dev/null 2>err || fail "otf2-print --silent big.otf2: $(cat err)"
read -r t1 m1 <time1
read -r t2 m2 <time2
echo "otf2: $((iters * 270)) events: $t1 s, $m1 KiB; $((iters * 540)) events: $t2 s, $m2 KiB"
! rss_checked || awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(b < 1.2 * a) }' ||
	fail "peak RSS grows with the events: $m1 KiB, then $m2 KiB"
exit 0
