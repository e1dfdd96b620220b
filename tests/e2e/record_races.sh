#!/usr/bin/env bash
# record_races.sh - the processes of a recorded command ending at the worst
# moments for their collector (samples/procs/proc_races.c), and record's
# side of them (the review of issue 23):
#   sigexit   _exit() from a SIGALRM handler, cutting into the collector's
#             own code: no child hangs, no event is written twice (the
#             expansion of every child works), each child is '_exit' 3 and
#             complete;
#   full      a fork on a full disk: the child is not killed by SIGBUS
#             (the ring file of a child), nor is record;
#   rawexec   a child that execs by a raw system call (not through the
#             program's calls): record does not wait for the new program
#             (MAPPROF_PROCS_WAIT=2);
#   execmt    an exec while another thread offloads: the exec leaves that
#             thread's buffer to record (it is shared memory) instead of
#             writing it under the thread's feet: every region the thread
#             finished before the exec is in the database;
#   recover   'mapprof recover PID.N.spool' from inside a live spool
#             directory (a relative path) is refused.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
prog=$MAPPROF_BUILD/samples/procs/proc_races
[ -x "$prog" ] || fail "no '$prog' (hint: make samples)"
dir=$(tmpdir)
cd "$dir"
ulimit -c 0

# ONLY="a b": run only those sections (to see one fail on an older build).
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# --- sigexit -----------------------------------------------------------------
if want sigexit; then
	rc=0
	timeout 120 "$mapprof" record -o sig.db -- "$prog" sigexit 30 >sig.out 2>sig.err || rc=$?
	grep -q "hangs" sig.err && fail "sigexit: a child hung in _exit: $(grep hangs sig.err)"
	[ "$rc" = 0 ] || fail "sigexit: record returned $rc: $(tail -5 sig.err)"
	grep -q "error" sig.err && fail "sigexit: $(grep -A1 error sig.err)"
	[ -d sig.spool.d ] && fail "sigexit: the spool directory is left: $(ls sig.spool.d)"
	n=0
	for d in sig.[0-9]*.db; do
		assert_eq "$(q "$d" "SELECT ended || ' ' || exit_status FROM process")" "_exit 3" "sigexit: $d's row"
		assert_eq "$(q "$d" "SELECT status FROM run")" complete \
			"sigexit: $d's status ($(q "$d" "SELECT status_detail FROM run"))"
		n=$((n + 1))
	done
	[ "$n" -ge 20 ] || fail "sigexit: only $n child databases of 30: $(ls)"
	echo "ok sigexit: $n children, none hung, every database whole"
fi

# --- full --------------------------------------------------------------------
if want full; then
	mkdir full
	if mount -t tmpfs -o size=4m tmpfs full 2>/dev/null; then
		rc=0
		# Its output outside: the disk it fills would take no message.
		(cd full && timeout 60 "$mapprof" record -o f.db -- "$prog" full >../f.out 2>../f.err) || rc=$?
		umount_full() { umount "$dir/full" 2>/dev/null || true; }
		grep -q "killed by signal" f.err && { umount_full; fail "full: $(grep killed f.err)"; }
		[ "$rc" -lt 128 ] || { umount_full; fail "full: record died (rc $rc): $(tail -3 f.err)"; }
		grep -q "child exited 0" f.err || { umount_full; fail "full: $(cat f.err)"; }
		umount_full
		echo "ok full: the child forked on a full disk exited 0, record rc $rc"
	else
		echo "note: full: cannot mount a tmpfs here: not tested"
	fi
fi

# --- rawexec -----------------------------------------------------------------
if want rawexec; then
	start=$(date +%s)
	MAPPROF_PROCS_WAIT=2 timeout 60 "$mapprof" record -o raw.db -- "$prog" rawexec >raw.out 2>raw.err ||
		fail "rawexec: $(cat raw.err)"
	took=$(($(date +%s) - start))
	# The sleep the child became: ours, end it.
	for d in raw.[0-9]*.db; do
		[ -f "$d" ] && kill "$(q "$d" "SELECT pid FROM process")" 2>/dev/null || true
	done
	[ "$took" -le 8 ] || fail "rawexec: record took $took s for a process that no longer records: $(cat raw.err)"
	grep -q "which still records" raw.err && fail "rawexec: $(cat raw.err)"
	echo "ok rawexec: record finished in $took s"
fi

# --- execmt -------------------------------------------------------------------
if want execmt; then
	timeout 60 "$mapprof" record -o mt.db -- "$prog" execmt 5 >mt.out 2>mt.err || fail "execmt: $(cat mt.err)"
	assert_eq "$(wc -l <mt.out)" 5 "execmt: children ($(cat mt.out))"
	while read -r _ pid _ regions; do
		d=mt.$pid.db
		assert_eq "$(q "$d" "SELECT ended FROM process")" exec "execmt: $d's end"
		kernels=$(q "$d" "SELECT COUNT(*) FROM kernels")
		ops=$(q "$d" "SELECT COUNT(*) FROM data_ops")
		[ "$kernels" -ge "$regions" ] && [ "$ops" -ge $((4 * regions)) ] ||
			fail "execmt: child $pid finished $regions regions before its exec, its database has $kernels kernels, $ops data operations"
	done <mt.out
	echo "ok execmt: every region finished before the exec is recorded"
fi

# --- recover inside a live spool directory -------------------------------------
if want recover; then
	"$mapprof" record -o live.db -- "$prog" daemon 3 >live.out 2>live.err &
	rec=$!
	spool=
	for _ in $(seq 100); do
		spool=$(cd live.db.spool.d 2>/dev/null && ls [0-9]*.spool 2>/dev/null | head -1) || true
		[ -n "$spool" ] && break
		sleep 0.05
	done
	[ -n "$spool" ] || { wait $rec || true; fail "recover: no child spool appeared: $(cat live.err)"; }
	rc=0
	(cd live.db.spool.d && "$mapprof" recover "$spool" >../rl.out 2>../rl.err) || rc=$?
	wait $rec || fail "recover: record failed: $(cat live.err)"
	[ "$rc" = 3 ] || fail "recover: a spool of a live recording was recovered (rc $rc): $(cat rl.err)"
	grep -q "being recorded" rl.err || fail "recover: $(cat rl.err)"
	live=(live.[0-9]*.db)
	assert_eq "$(q "${live[0]}" "SELECT COUNT(*) FROM kernels")" 1 "recover: the child's database"
	echo "ok recover: a live child spool refused"
fi
