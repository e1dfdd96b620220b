#!/usr/bin/env bash
# record_proc_ends.sh - every process of a recorded command keeps every
# event it recorded, however it ends, and its process row says how it
# ended: a forked child that calls _exit(), one that outlives its parent
# (record waits for it), one killed by SIGKILL (reaped by record, and by its
# parent), one that aborts, one that execs, and a process that execs with
# an empty environment (samples/procs/proc_ends.c states the counts).  The
# image before an exec keeps its source records.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
prog=$MAPPROF_BUILD/samples/procs/proc_ends
[ -x "$prog" ] || fail "no '$prog' (hint: make samples)"
dir=$(tmpdir)
cd "$dir"
ulimit -c 0

# counts N: the events of N map(tofrom:) regions
counts() {
	echo "alloc=$1 to_device=$1 from_device=$1 delete=$1 kernel=$1"
}

# record HOW: record proc_ends HOW into HOW.db; the child's database is HOW.PID.db
record() {
	"$mapprof" record -o "$1.db" -- "$prog" "$1" >"$1.out" 2>"$1.err" || fail "record $1: $(cat "$1.err")"
	assert_eq "$(db_counts "$1.db")" "$(counts 1)" "$1: the parent's events"
	assert_eq "$(q "$1.db" "SELECT started, ended, exit_status FROM process")" "record|exited|0" "$1: the parent's row"
}

# child HOW N ENDED: the child's database holds N regions' events, ended as ENDED
child() {
	local dbs=("$1".[0-9]*.db) d
	assert_eq "${#dbs[@]}" 1 "$1: databases of the child ($(ls))"
	d=${dbs[0]}
	assert_eq "$(db_counts "$d")" "$(counts "$2")" "$1: the child's events"
	assert_eq "$(q "$d" "SELECT started, ended, COALESCE(exit_status, ''), COALESCE(exit_signal, '') FROM process")" \
		"$3" "$1: the child's row"
	assert_eq "$(q "$d" "SELECT status FROM run")" complete "$1: the child's status ($(q "$d" "SELECT status_detail FROM run"))"
	[ "$(q "$d" "SELECT COUNT(*) FROM source_raw WHERE psource LIKE '%proc_ends.c;%'")" -gt 0 ] ||
		fail "$1: the child's database has no source records"
	echo "ok $1: $(q "$d" "SELECT ended FROM process"), $(db_counts "$d")"
}

record _exit
child _exit 3 "fork|_exit|7|"

# The parent exits at once: record waits for the orphan, which is told nothing.
record daemon
grep -q "gone" daemon.err && fail "daemon: the child was told record was gone: $(cat daemon.err)"
child daemon 300 "fork|exited|0|"

record kill
child kill 5 "fork|killed|137|9"

# Reaped by its parent, not by record: killed or ended by a raw exit, record cannot tell.
record killwait
child killwait 5 "fork|unknown||"

record abort
child abort 2 "fork|killed|134|6"

# An exec'ing child: its first image's database, then the new program's.
"$mapprof" record -o exec.db -- "$prog" exec >exec.out 2>exec.err || fail "record exec: $(cat exec.err)"
pid=$(q exec.db "SELECT pid FROM process")
c=$(ls exec.[0-9]*.db | grep -v '\.[0-9]*\.[0-9]*\.db$')
assert_eq "$(db_counts "$c")" "$(counts 2)" "exec: the child's first image"
assert_eq "$(q "$c" "SELECT started, ended FROM process")" "fork|exec" "exec: the child's first image's row"
assert_eq "$(q "$c" "SELECT status FROM run")" complete "exec: the child's first image's status"
[ "$(q "$c" "SELECT COUNT(*) FROM source_raw WHERE psource LIKE '%proc_ends.c;%'")" -gt 0 ] ||
	fail "exec: the child's first image has no source records"
cpid=$(q "$c" "SELECT pid FROM process")
assert_eq "$(db_counts "exec.$cpid.1.db")" "$(counts 1)" "exec: the child's second image"
assert_eq "$(q "exec.$cpid.1.db" "SELECT started, ended FROM process")" "exec|exited" "exec: the second image's row"
echo "ok exec: $(db_counts "$c"); then $(db_counts "exec.$cpid.1.db")"

# exec with an empty environment: the new program does not record, the old one says it exec'd.
"$mapprof" record -o clear.db -- "$prog" execclear >clear.out 2>clear.err || fail "record execclear: $(cat clear.err)"
assert_eq "$(db_counts clear.db)" "$(counts 2)" "execclear: events"
assert_eq "$(q clear.db "SELECT started, ended FROM process")" "record|exec" "execclear: the row"
assert_eq "$(q clear.db "SELECT status FROM run")" complete "execclear: status"
grep -q "killed, or _exit" clear.err && fail "execclear: record blames a kill: $(cat clear.err)"
[ "$(q clear.db "SELECT COUNT(*) FROM source_raw WHERE psource LIKE '%proc_ends.c;%'")" -gt 0 ] ||
	fail "execclear: no source records before the exec"
echo "ok execclear: exec, $(db_counts clear.db)"
