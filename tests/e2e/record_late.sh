#!/usr/bin/env bash
# record_late.sh - a program that offloads after the OpenMP runtime finalized
# mapprof's collector (omp_pause_resource_all(omp_pause_hard); the runtime
# starts again without a tool): those regions reach no OMPT tool, and the
# recording must not call itself complete.
#   - 3 regions, the pause, 5 more: the run is 'incomplete', its detail says
#     5 offload calls came after the collector was finalized, stats row
#     offload_calls_late = 5, record warns, the 3 regions before are all
#     there (4 data operations and a kernel each), the program's output and
#     exit status are its own, and 'mapprof report' says the recording is
#     incomplete (and exits 4, as for any incomplete recording);
#   - 1 region after the pause: "1 offload call ... that call";
#   - the pause with nothing after it: complete, no such row (nothing was
#     missed);
#   - a thread offloading in a loop while main calls _exit() or exit(), 3
#     runs each: its calls after the collector finished are the end's race,
#     not missed offloads: no such row, no such detail (with _exit() every
#     run said 5-36 "offload calls came after" before the collector told
#     the process's end from a pause).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

compile_offload "$MAPPROF_SRC/tests/e2e/late_pause.c" late_pause -O1

# NAME LATE: record 3 regions, the pause and LATE regions; check what every case shares.
rec() {
	local name=$1 late=$2 rc
	"$mapprof" record -o "$name.db" -- ./late_pause 3 "$late" >"$name.out" 2>"$name.err"
	rc=$?
	[ "$rc" = 0 ] || { cat "$name.err" >&2; fail "$name: record exited $rc"; }
	assert_eq "$(cat "$name.out")" "pause 0, a[0] = $((3 + late))" "$name: the program's output"
	assert_eq "$(sqlite3 "$name.db" 'PRAGMA integrity_check')" ok "integrity_check of $name"
	assert_eq "$(sqlite3 "$name.db" "SELECT (SELECT COUNT(*) FROM data_ops) || ' ' || (SELECT COUNT(*) FROM kernels)")" \
		"12 3" "$name: the regions before the pause"
	assert_eq "$(sqlite3 "$name.db" 'SELECT exit_status FROM run')" 0 "$name: exit status"
}

rec late5 5
assert_eq "$(sqlite3 late5.db 'SELECT status FROM run')" incomplete "late5: run status"
sqlite3 late5.db 'SELECT status_detail FROM run' | grep -q '^5 offload calls came after the OpenMP runtime had finalized the mapprof collector .*those calls are not recorded$' ||
	fail "late5: status_detail: $(sqlite3 late5.db 'SELECT status_detail FROM run')"
assert_eq "$(sqlite3 late5.db "SELECT value FROM stats WHERE name = 'offload_calls_late'")" 5 "late5: stats offload_calls_late"
grep -q 'warning: recording of .* is incomplete: 5 offload calls came after' late5.err ||
	fail "late5: record did not warn: $(cat late5.err)"
rc=0
"$mapprof" report --no-html --json late5.json late5.db >report.out 2>&1 || rc=$?
# 4: the report of an incomplete recording (docs/usage.md).
assert_eq "$rc" 4 "mapprof report of late5: exit status"
grep -q 'incomplete recording: 5 offload calls came after' report.out ||
	fail "late5: the report's summary does not say the recording is incomplete: $(cat report.out)"

rec late1 1
sqlite3 late1.db 'SELECT status_detail FROM run' | grep -q '^1 offload call came after .*the events of that call are not recorded$' ||
	fail "late1: status_detail: $(sqlite3 late1.db 'SELECT status_detail FROM run')"

rec late0 0
assert_eq "$(sqlite3 late0.db 'SELECT status FROM run')" complete "late0: run status"
assert_eq "$(sqlite3 late0.db "SELECT COUNT(*) FROM stats WHERE name = 'offload_calls_late'")" 0 "late0: no offload_calls_late row"
! grep -q 'offload call' late0.err || fail "late0: record warned: $(cat late0.err)"

compile_offload "$MAPPROF_SRC/tests/e2e/late_race.c" late_race -O1 -lpthread
for how in _exit exit _exit exit _exit exit; do
	# exit() may end by SIGSEGV: the thread offloads while the runtime is torn down (natively too).
	"$mapprof" record -f -o race.db -- ./late_race "$how" >race.out 2>race.err
	[ -s race.db ] || fail "race ($how): no database: $(cat race.err)"
	assert_eq "$(sqlite3 race.db "SELECT COUNT(*) FROM stats WHERE name = 'offload_calls_late'")" 0 \
		"race ($how): offload_calls_late rows"
	! sqlite3 race.db 'SELECT status_detail FROM run' | grep -q 'offload call' ||
		fail "race ($how): $(sqlite3 race.db 'SELECT status_detail FROM run')"
done

echo "ok record_late: 5 and 1 offload calls after the collector was finalized said; none when there are none, nor at the process's end"
