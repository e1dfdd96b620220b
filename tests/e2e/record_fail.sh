#!/usr/bin/env bash
# record_fail.sh - a recording that fails keeps what it can and says what
# happened (issue 14): 'mapprof record' killed, the disk full, the spool's cap.
# Each case checks what is kept (events in the database against the whole
# frames of the spool), what is said (once, nothing contradictory) and that
# the program runs on unharmed (its output and exit status).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# loop SECONDS PAUSE_US: tiny target regions (6 events each) for SECONDS, then exit 7.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" loop -O1 -DBATCH=64 -DSTATUS=7 -DPAUSE_FROM_ARGV

# spool_records SPOOL: the events in the spool's whole RECORDS frames.
spool_records() {
	"$PYTHON" - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
rec_size = struct.unpack_from('I', d, 12)[0]
off, n = 24, 0
while len(d) - off >= 8:
    t, ln = struct.unpack_from('II', d, off)
    off += 8
    if len(d) - off < ln:
        break
    if t == 1:
        n += ln // rec_size
    off += ln
print(n)
PY
}
events() { q "$1" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)"; }
# once FILE TEXT WHAT: TEXT is on exactly one line of FILE.
once() {
	local n
	n=$(grep -cF -- "$2" "$1")
	[ "$n" -eq 1 ] || { cat "$1" >&2; fail "$3: '$2' said $n times, want once"; }
}
# never FILE TEXT: no line of FILE says TEXT.
never() {
	! grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "contradictory message: '$2'"; }
}

# --- 1. 'mapprof record' killed while the program runs -----------------------
# The program runs under sh (not record's own child, as in a script), which
# writes its exit status down: nobody waits for it once record is gone.
"$mapprof" record -o k.db -- sh -c './loop 4 1000 >k.out; echo $? >k.status' 2>k.err &
rec=$!
sleep 1.5
kill -0 "$rec" 2>/dev/null || fail "record ended before it was killed"
kill -9 "$rec"
wait "$rec" 2>/dev/null
sleep 1.5
once k.err "the recorder ('mapprof record', pid $rec) is gone: recording stopped" "record killed"
once k.err "recover it with: mapprof recover $d/k.db-spool" "record killed"
[ ! -f k.status ] || fail "the program was over before the check (too fast a machine?)"
size1=$(stat -c %s k.db-spool)
sleep 1
size2=$(stat -c %s k.db-spool)
assert_eq "$size2" "$size1" "the spool's size a second later (it must stop growing)"
# The database record left says so, and how to recover.
assert_eq "$(q k.db "SELECT status FROM run_raw")" recording "the status of the killed record's database"
q k.db "SELECT status_detail FROM run_raw" | grep -qF "mapprof recover $d/k.db-spool" ||
	fail "the killed record's database does not name the recover command"
for _ in $(seq 50); do [ -f k.status ] && break; sleep 0.2; done
assert_eq "$(cat k.status 2>/dev/null)" 7 "the program's exit status after record was killed"
grep -q '^done [0-9]' k.out || fail "the program did not run to its end"
assert_eq "$(grep -c mapprof-collector k.err)" 1 "collector messages after record was killed"
want=$(spool_records k.db-spool)
[ "$want" -gt 0 ] || fail "the spool holds no events"
"$mapprof" recover k.db-spool 2>k.rec || { cat k.rec >&2; fail "mapprof recover failed"; }
assert_eq "$(events k.db)" "$want" "events recovered against the spool's"
assert_eq "$(q k.db "SELECT status FROM run")" incomplete "the recovered run's status"
q k.db "SELECT status_detail FROM run" | grep -q "recovered from the spool .*killed" ||
	fail "the recovered run does not say why it is incomplete: $(q k.db "SELECT status_detail FROM run")"
[ ! -e k.db-spool ] || fail "recover left the spool"

# --- 1b. record killed while a forked child records: the spool directory ------
# forkloop SECONDS: offload once, fork a child that offloads for SECONDS, wait, exit 7.
cat >forkloop.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	double secs = atof(argv[1]), x = 0;
	struct timespec t0, t;
	int st;
	pid_t pid;
#pragma omp target map(tofrom: x)
	x += 1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 64; i++) {
#pragma omp target map(tofrom: x)
				x += 1;
			}
			usleep(20000);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
		exit(0);
	}
	waitpid(pid, &st, 0);
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 7;
}
C
compile_offload forkloop.c forkloop -O1
"$mapprof" record -o p.db -- sh -c './forkloop 3 >p.out; echo $? >p.status' 2>p.err &
rec=$!
sleep 1.5
kill -0 "$rec" 2>/dev/null || fail "record (forkloop) ended before it was killed"
kill -9 "$rec"
wait "$rec" 2>/dev/null
for _ in $(seq 50); do [ -f p.status ] && break; sleep 0.2; done
assert_eq "$(cat p.status 2>/dev/null)" 7 "forkloop's exit status after record was killed"
assert_eq "$(cat p.out)" "child 0" "forkloop's child after record was killed"
spools=(p.db.spool.d/*.spool)
assert_eq "${#spools[@]}" 1 "spools left in the spool directory"
cpid=$(basename "${spools[0]}" .0.spool)
# The child's collector names record's pid and the spool to recover.
once p.err "the recorder ('mapprof record', pid $rec) is gone: recording stopped, the program runs on; the spool '$d/${spools[0]}'" \
	"record killed (child)"
once p.err "recover it with: mapprof recover $d/${spools[0]}" "record killed (child)"
want=$(spool_records "${spools[0]}")
[ "$want" -gt 0 ] || fail "the child's spool holds no events"
# The next recording refuses the directory, and says how to expand it.
rc=0
"$mapprof" record -o p.db -- ./forkloop 0 >/dev/null 2>p2.err || rc=$?
[ "$rc" -ne 0 ] || fail "record reused a spool directory holding spools"
grep -q "holds the spools of a recording that was cut short (expand them with 'mapprof recover DIR'" p2.err ||
	fail "record's refusal does not name recover: $(cat p2.err)"
# recover DIR: each spool its database, named as record would (PATH.PID.db).
"$mapprof" recover p.db.spool.d 2>p.rec || { cat p.rec >&2; fail "mapprof recover DIR failed"; }
[ -f "p.$cpid.db" ] || fail "recover DIR wrote no p.$cpid.db: $(cat p.rec)"
[ ! -e p.db.spool.d ] || fail "recover DIR left the directory: $(ls p.db.spool.d)"
assert_eq "$(events "p.$cpid.db")" "$want" "the child's events recovered against its spool's"
assert_eq "$(q "p.$cpid.db" "SELECT status FROM run")" incomplete "the recovered child's status"
q "p.$cpid.db" "SELECT status_detail FROM run" | grep -q "recovered from the spool directory .*killed" ||
	fail "the recovered child does not say why: $(q "p.$cpid.db" "SELECT status_detail FROM run")"
assert_eq "$(q "p.$cpid.db" "SELECT pid || ' ' || started || ' ' || ended FROM process")" "$cpid fork unknown" \
	"the recovered child's process"
"$mapprof" recover p.db-spool 2>p.rec || { cat p.rec >&2; fail "mapprof recover of the first process failed"; }
rc=0
"$mapprof" report --no-html --no-json p.db "p.$cpid.db" >p.sum 2>p.rep || rc=$?
assert_eq "$rc" 4 "report of the recovered processes (incomplete)"
grep -q "^2 processes: " p.sum || fail "report of the recovered processes: $(cat p.sum p.rep)"

# --- 2. the disk fills up ------------------------------------------------------
mkdir fs big
if ! mount -t tmpfs -o size=4m tmpfs fs 2>mount.err; then
	skip "cannot mount a 4 MiB tmpfs to fill ($(cat mount.err)): needs root or CAP_SYS_ADMIN"
fi
trap 'umount "$d/fs" 2>/dev/null; rm -rf "$_E2E_TMP"' EXIT
# A cap above the disk: the disk fills first, the database does not fit either.
rc=0
"$mapprof" record --max-spool 1G -o fs/f.db -- ./loop 1 0 >f.out 2>f.err || rc=$?
assert_eq "$rc" 7 "record's exit status when the disk filled up (the program's own)"
grep -q '^done [0-9]' f.out || fail "the program did not run to its end on a full disk"
once f.err "recording stopped, the program runs on: the disk filled up after" "full disk"
once f.err "recover them with: mapprof recover $d/fs/f.db-spool" "full disk"
never f.err "already holds a recorded run"
never f.err "events were lost"
want=$(spool_records fs/f.db-spool)
[ "$want" -gt 0 ] || fail "the full disk's spool holds no events"
# Every event that fit is in the spool: recover it where there is room.
"$mapprof" recover -o big/r.db fs/f.db-spool 2>f.rec || { cat f.rec >&2; fail "recover after a full disk failed"; }
assert_eq "$(events big/r.db)" "$want" "events recovered after a full disk against the spool's"
assert_eq "$(q big/r.db "SELECT status FROM run")" incomplete "the status of a run that filled the disk"
q big/r.db "SELECT status_detail FROM run" | grep -q "^the disk filled up after $want events" ||
	fail "the full disk's run says: $(q big/r.db "SELECT status_detail FROM run")"
rm -f fs/*

# The default cap (a quarter of the free space) stops the spool before the
# disk is full, and the database fits beside it.
rc=0
"$mapprof" record -o fs/d.db -- ./loop 1 0 >/dev/null 2>d.err || rc=$?
assert_eq "$rc" 7 "record's exit status under the default cap"
once d.err "the spool cap of" "default cap"
never d.err "disk filled up"
assert_eq "$(q fs/d.db "SELECT status FROM run")" incomplete "the status of a run under the default cap"
umount fs

# --- 3. the spool's cap --------------------------------------------------------
rc=0
"$mapprof" record --max-spool 1M -o c.db -- ./loop 1 0 >c.out 2>c.err || rc=$?
assert_eq "$rc" 7 "record's exit status when the cap was hit (the program's own)"
grep -q '^done [0-9]' c.out || fail "the program did not run to its end past the cap"
once c.err "the spool cap of 1 MiB was reached after" "cap"
once c.err "raise it with 'mapprof record --max-spool SIZE'" "cap"
never c.err "events were lost"
got=$(events c.db)
said=$(sed -n 's/.*cap of 1 MiB was reached after \([0-9]*\) events.*/\1/p' c.err)
assert_eq "$got" "$said" "events kept against the number the message gives"
# The records of 1 MiB of spool, less the frames that are not events.
rec_size=96
[ "$got" -le $((1048576 / rec_size)) ] && [ "$got" -ge $((1048576 / rec_size * 8 / 10)) ] ||
	fail "$got events kept under a 1 MiB cap, want about $((1048576 / rec_size))"
assert_eq "$(q c.db "SELECT status FROM run")" incomplete "the status of a run past its cap"
q c.db "SELECT status_detail FROM run" | grep -qF "the spool cap of 1 MiB was reached after $got events" ||
	fail "the capped run says: $(q c.db "SELECT status_detail FROM run")"
assert_eq "$(q c.db "SELECT exit_status FROM run")" 7 "the capped run's exit status"
# A bad size is a usage error, before the program runs.
rc=0
"$mapprof" record --max-spool lots -o bad.db -- ./loop 0 0 >/dev/null 2>bad.err || rc=$?
assert_eq "$rc" 2 "record --max-spool lots"
[ ! -e bad.db ] || fail "a bad --max-spool left a database"
echo "ok"
