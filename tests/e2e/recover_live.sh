#!/usr/bin/env bash
# recover_live.sh - 'mapprof recover' refuses the spool of a recording that
# is still under way (issue 23, item 5): record holds a lock on its spool
# and spool directory while it lives; recover says so (exit 3) and leaves
# them alone, and record's database then holds every event of the run.
# Once record is gone (killed), the lock goes with it and recover works.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# loop SECONDS: target regions (6 events each) for SECONDS; prints how many.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" loop -O1 -DPAUSE_US=100
events() { q "$1" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)"; }

"$mapprof" record -o live.db -- ./loop 2 >loop.out 2>rec.err &
rec=$!
for _ in $(seq 100); do [ -s live.db-spool ] && break; sleep 0.05; done
sleep 0.7
kill -0 "$rec" 2>/dev/null || fail "record ended before the test could try to recover its spool"
for what in live.db-spool live.db.spool.d; do
	rc=0
	"$mapprof" recover "$what" 2>r.err || rc=$?
	assert_eq "$rc" 3 "exit status of recover $what while record runs"
	grep -qF "cannot recover '$what': it is being recorded" r.err ||
		{ cat r.err >&2; fail "recover $what does not say the recording is under way"; }
done
[ -e live.db-spool ] || fail "recover removed the live spool"
[ -d live.db.spool.d ] || fail "recover removed the live spool directory"
assert_eq "$(q live.db "SELECT status FROM run_raw")" recording "the live database's status after recover"
wait "$rec" || { cat rec.err >&2; fail "record failed"; }
n=$(sed -n 's/^done //p' loop.out)
assert_eq "$(q live.db "SELECT status FROM run")" complete "the run's status"
assert_eq "$(events live.db)" "$((6 * n))" "events recorded while recover was tried (6 a region)"
[ ! -e live.db-spool ] || fail "record left its spool"

# Killed: the lock is gone with record, recover takes the spool.
"$mapprof" record -o dead.db -- ./loop 1.5 >/dev/null 2>dead.err &
rec=$!
for _ in $(seq 100); do [ -s dead.db-spool ] && break; sleep 0.05; done
sleep 0.5
kill -9 "$rec"
wait "$rec" 2>/dev/null
"$mapprof" recover dead.db-spool 2>r.err || { cat r.err >&2; fail "recover after record was killed"; }
[ "$(events dead.db)" -gt 0 ] || fail "recover after record was killed kept no event"
echo ok
