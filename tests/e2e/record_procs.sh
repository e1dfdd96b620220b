#!/usr/bin/env bash
# record_procs.sh - 'mapprof record' of a program that forks a child that
# offloads, and of one that execs another offloading program: every process
# (every program image) gets its database, each holding exactly what the
# independent tracer saw in that process (samples/procs/*.c state the
# counts), with its process row; and -o's %p, %r, %% and bad sequences.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
dir=$(tmpdir)
cd "$dir"

# --- fork: parent and child --------------------------------------------------
prog=$MAPPROF_BUILD/samples/procs/fork_child
[ -x "$prog" ] || fail "no '$prog' (hint: make samples)"
rm -f "$dir/fork.%p.tsv"
OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/tests/libtracer.so \
	MAPPROF_TRACER_OUT="$dir/fork.%p.tsv" "$prog" >tracer.out || fail "fork_child failed under the tracer"
traces=(fork.*.tsv)
assert_eq "${#traces[@]}" 2 "fork_child: processes the tracer saw"

"$mapprof" record -o fork.db -- "$prog" >rec.out 2>rec.err || fail "record fork_child: $(cat rec.err)"
cmp -s rec.out tracer.out || fail "fork_child: stdout differs from a run without mapprof"
dbs=(fork*.db)
assert_eq "${#dbs[@]}" 2 "fork_child: databases ($(ls))"
[ ! -e fork.db.spool.d ] || fail "fork_child: the spool directory is left: $(ls fork.db.spool.d)"
parent=$(q fork.db "SELECT pid FROM process")
child_db=$(ls fork.*.db)
child=$(q "$child_db" "SELECT pid FROM process")
assert_eq "$child_db" "fork.$child.db" "fork_child: the child's database name"
assert_eq "$(q "$child_db" "SELECT ppid, started, ended FROM process")" "$parent|fork|exited" \
	"fork_child: the child's process row"
assert_eq "$(q fork.db "SELECT started, ended, exit_status FROM process")" "record|exited|0" \
	"fork_child: the parent's process row"
assert_eq "$(db_counts fork.db)" "alloc=2 to_device=2 from_device=2 delete=2 kernel=2" \
	"fork_child: the parent's events vs its header"
assert_eq "$(db_counts "$child_db")" "alloc=6 to_device=3 from_device=3 delete=6 kernel=3" \
	"fork_child: the child's events vs its header"
# Exact against the tracer, process by process (the pids differ between runs:
# match the tracer's files to the databases by their counts, then compare all).
want=$(for t in "${traces[@]}"; do tracer_counts "$t"; done | sort)
got=$(for d in "${dbs[@]}"; do db_counts "$d"; done | sort)
assert_eq "$got" "$want" "fork_child: per-process counts vs the tracer"
for t in "${traces[@]}"; do
	c=$(tracer_counts "$t")
	for d in "${dbs[@]}"; do
		[ "$(db_counts "$d")" == "$c" ] || continue
		assert_eq "$(db_contents "$d")" "$(tracer_contents "$t")" "fork_child: contents of $d vs $t"
	done
done
for d in "${dbs[@]}"; do
	assert_eq "$(q "$d" "SELECT status FROM run")" complete "$d: status"
	[ "$(q "$d" "SELECT COUNT(*) FROM devices")" -ge 1 ] || fail "$d: no devices"
	assert_eq "$(q "$d" "SELECT COUNT(*) FROM data_ops WHERE op = 'delete' AND NOT EXISTS
		(SELECT 1 FROM allocations a WHERE a.delete_seq = data_ops.seq)")" 0 "$d: deletes unpaired"
	assert_eq "$(q "$d" "SELECT COUNT(*) FROM modules WHERE path LIKE '%/fork_child'")" 1 \
		"$d: the executable in the module map"
	[ "$(q "$d" "SELECT COUNT(*) FROM source_raw WHERE psource LIKE '%fork_child.c;%'")" -gt 0 ] ||
		fail "$d: no source records"
done
grep -q "process $child (fork): recorded 18 data operations, 3 kernels to 'fork.$child.db'" rec.err ||
	fail "fork_child: record does not name the child's database: $(cat rec.err)"
"$mapprof" report -q --no-html --json fork.json "$child_db" 2>report.err ||
	fail "report of the child's database: $(cat report.err)"
echo "ok fork_child: parent $(db_counts fork.db); child $(db_counts "$child_db")"

# --- exec: one pid, two program images ---------------------------------------
prog=$MAPPROF_BUILD/samples/procs/exec_chain
rm -f exec.*.tsv
OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/tests/libtracer.so \
	MAPPROF_TRACER_OUT="$dir/exec.%p.tsv" "$prog" >tracer.out || fail "exec_chain failed under the tracer"
traces=(exec.*.tsv)
assert_eq "${#traces[@]}" 1 "exec_chain: pids the tracer saw"
"$mapprof" record -o exec.db -- "$prog" >rec.out 2>rec.err || fail "record exec_chain: $(cat rec.err)"
cmp -s rec.out tracer.out || fail "exec_chain: stdout differs from a run without mapprof"
pid=$(q exec.db "SELECT pid FROM process")
[ -f "exec.$pid.db" ] || fail "exec_chain: no database of the second image: $(ls)"
assert_eq "$(q exec.db "SELECT started, ended FROM process")" "record|exec" "exec_chain: image 1's row"
assert_eq "$(q "exec.$pid.db" "SELECT pid, started, ended, exit_status FROM process")" "$pid|exec|exited|0" \
	"exec_chain: image 2's row"
assert_eq "$(q exec.db "SELECT status FROM run")" complete "exec_chain: image 1's status"
assert_eq "$(q "exec.$pid.db" "SELECT command FROM run")" "[\"$prog\",\"second\"]" \
	"exec_chain: image 2's command"
assert_eq "$(db_counts exec.db)" "alloc=2 to_device=2 from_device=2 delete=2 kernel=2" \
	"exec_chain: image 1 vs its header"
assert_eq "$(db_counts "exec.$pid.db")" "alloc=2 to_device=1 from_device=1 delete=2 kernel=1" \
	"exec_chain: image 2 vs its header"
# The tracer's file of that pid holds both images.
got=$(q exec.db "SELECT op, bytes, hash FROM data_ops WHERE hash IS NOT NULL";
	q "exec.$pid.db" "SELECT op, bytes, hash FROM data_ops WHERE hash IS NOT NULL")
assert_eq "$(sort <<<"$got")" "$(tracer_contents "${traces[0]}")" "exec_chain: the pid's contents vs the tracer"
assert_eq "alloc=4 to_device=3 from_device=3 delete=4 kernel=3" "$(tracer_counts "${traces[0]}")" \
	"exec_chain: the tracer vs the header's totals"
grep -q "killed, or _exit" rec.err && fail "exec_chain: record blames a kill: $(cat rec.err)"
echo "ok exec_chain: image 1 $(db_counts exec.db); image 2 $(db_counts "exec.$pid.db")"

# --- -o: %p, %%, bad sequences, a script running two programs ----------------
"$mapprof" record -o 'p.%p.%%.db' -- "$MAPPROF_BUILD/samples/procs/fork_child" >/dev/null 2>rec.err ||
	fail "record -o with %p: $(cat rec.err)"
n=0
for d in p.*.%.db; do
	pid=${d#p.}
	pid=${pid%%.*}
	assert_eq "$(q "$d" "SELECT pid FROM process")" "$pid" "-o %p: $d names its process"
	n=$((n + 1))
done
assert_eq "$n" 2 "-o %p: databases ($(ls p.*))"
rc=0
"$mapprof" record -o 'x.%q.db' -- true 2>rec.err || rc=$?
assert_eq "$rc" 2 "-o with %q: exit status"
grep -q "only %p (pid), %r (MPI rank) and %% may follow a %" rec.err || fail "-o %q: $(cat rec.err)"

printf '#!/bin/sh\n"$1" >/dev/null\n"$1" >/dev/null\n' >two.sh
chmod +x two.sh
"$mapprof" record -o two.db -- ./two.sh "$MAPPROF_BUILD/samples/round_trip" 2>rec.err ||
	fail "record a script: $(cat rec.err)"
dbs=(two*.db)
assert_eq "${#dbs[@]}" 2 "script of two programs: databases ($(ls two*))"
for d in "${dbs[@]}"; do
	assert_eq "$(db_counts "$d")" "alloc=5 to_device=5 from_device=5 delete=5 kernel=5" "script: $d"
done
echo "ok -o %p %% and a script of two programs"
