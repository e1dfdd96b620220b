#!/usr/bin/env bash
# record_syscalls.sh - the system calls 'mapprof record' and the collector
# make per chunk of events (issue 29: a system call costs ~2.5 us
# in this VM and a launch-heavy program fills ~1,800 chunks of 1,024 events a
# second).  bench/launch_heavy.c with 60,000 regions (360,000 events, ~350
# chunks) recorded under strace, the live expansion at the program's
# priority (MAPPROF_LIVE_EXPAND=eager, so that it runs on every machine):
#   - the spool read back with 2 pread() calls a frame (at most 3 a chunk)
#     and one every 2 ms:
#     the live expansion reads each frame once, with the next frame's header
#     behind it, the scan after the program one a frame, the rest 4 MiB at
#     a time (34db1d3: 4 a frame live, 3 more a frame after the program);
#   - the drain writes the chunks of a pass in one writev(): fewer writes to
#     the spool than 80 % of the chunks, or than one every 4 ms of the run
#     (34db1d3: one write a chunk);
#   - the collector looks whether 'record' is gone (a poll() on its pipe) at
#     most once every 4 ms of the program's run, plus a few (34db1d3: once a
#     chunk).  A bound from the run's own length, not a speed.
# The events recorded are all there, the same counts as without strace.
# Then a quiet program (tests/e2e/timed_loop.c: one region every 100 ms for
# a second, nothing for the live expansion to do): its thread looks at the
# spool (one fstat a look) at most once every 16 ms of the run, plus a few:
# the nap doubles from 2 ms to 32 ms while nothing comes (50429b2 looked
# every 2 ms: ~450 times, each a wake-up on a core the program may use).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v strace >/dev/null 2>&1 || skip "strace is missing (apt-get install strace; make test-deps installs it)"
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
compile_offload "$MAPPROF_SRC/bench/launch_heavy.c" heavy -O2

regions=60000
# (LeakSanitizer cannot run under ptrace: a sanitized build's mapprof would fail.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 MAPPROF_LIVE_EXPAND=eager \
	strace -f -qq -ttt -y -e trace=pread64,write,writev,poll,execve,exit_group -o st \
	"$mapprof" record -o st.db -- ./heavy $regions >out 2>err || fail "record under strace: $(cat err)"
assert_eq "$(cat out)" "$regions" "the program's output"
events=$(sqlite3 st.db "SELECT (SELECT count(*) FROM data_op_raw) + (SELECT count(*) FROM kernel_raw) + (SELECT count(*) FROM target_raw)")
assert_eq "$events" $((6 * regions)) "events recorded (4 data ops, a kernel, a construct per region)"
chunks=$(( (events + 1023) / 1024 ))

# The spool's descriptors show its path (-y): ...st.db-spool>.
reads=$(grep -c 'pread64([0-9]*<[^>]*-spool>' st)
writes=$(grep -cE 'writev?\([0-9]*<[^>]*-spool>' st)

# The program: from its execve to its exit_group, its polls on record's pipe.
prog=$(awk '/execve\("\.\/heavy"/ {print $1; exit}' st)
[ -n "$prog" ] || fail "no execve of the program in the trace"
t0=$(awk -v p="$prog" '$1 == p && /execve\(/ {print $2; exit}' st)
t1=$(awk -v p="$prog" '$1 == p && /exit_group\(/ {print $2}' st | tail -1)
[ -n "$t1" ] || fail "no exit_group of the program in the trace"
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", (b - a) * 1000 + 1}')
# One read a frame live, one after the program (the chunks' frames and the
# small ones between them: call sites, modules...), and the live thread's
# look at the spool's end every 2 ms (a header read when something came).
[ "$reads" -le $((3 * chunks + ms / 2)) ] ||
	fail "$reads pread() calls on the spool for $chunks chunks in a ${ms} ms run (at most $((3 * chunks + ms / 2)))"
# A pass every 1-4 ms: fewer writes than 80 % of the chunks, or (a program
# so slow that a pass finds one chunk) no more than one every 4 ms.
[ "$writes" -lt $((chunks * 8 / 10)) ] || [ "$writes" -le $((ms / 4 + 8)) ] ||
	fail "$writes writes to the spool for $chunks chunks in a ${ms} ms run (fewer than $((chunks * 8 / 10)) expected)"
polls=$(grep -cE '^[0-9]+ +[0-9.]+ poll\(\[\{fd=[0-9]+<pipe:' st)
[ "$polls" -le $((ms / 4 + 8)) ] ||
	fail "the collector polled record's pipe $polls times in a ${ms} ms run (at most $((ms / 4 + 8)): once every 4 ms)"
echo "ok: $chunks chunks: $reads spool reads, $writes spool writes; $polls polls in ${ms} ms"

# The quiet program.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" quiet -O1 -DBATCH=1 -DPAUSE_US=100000
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 MAPPROF_LIVE_EXPAND=eager \
	strace -f -qq -ttt -y -e trace=fstat,newfstatat,execve,exit_group -o stq \
	"$mapprof" record -o quiet.db -- ./quiet 1 >out 2>err || fail "record of the quiet program: $(cat err)"
n=$(sed -n 's/^done //p' out)
[ -n "$n" ] || fail "the quiet program printed no count: $(cat out)"
assert_eq "$(sqlite3 quiet.db "SELECT count(*) FROM kernel_raw")" "$n" "kernels of the quiet program"
prog=$(awk '/execve\("\.\/quiet"/ {print $1; exit}' stq)
t0=$(awk -v p="$prog" '$1 == p && /execve\(/ {print $2; exit}' stq)
t1=$(awk -v p="$prog" '$1 == p && /exit_group\(/ {print $2}' stq | tail -1)
[ -n "$t0" ] && [ -n "$t1" ] || fail "no execve or exit_group of the quiet program in the trace"
ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%d", (b - a) * 1000 + 1}')
looks=$(grep -cE 'fstat(at)?\([0-9]+<[^>]*-spool>' stq)
[ "$looks" -ge 1 ] || fail "the live expansion never looked at the spool (no fstat on it in the trace)"
[ "$looks" -le $((ms / 16 + 10)) ] ||
	fail "the live expansion looked at the spool $looks times in a ${ms} ms quiet run (at most $((ms / 16 + 10)))"
echo "ok: quiet program: $n regions in ${ms} ms, the spool looked at $looks times"
