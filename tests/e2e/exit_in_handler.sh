#!/usr/bin/env bash
# _exit() from a signal handler that cut into one of the collector's locks
# (write tracking's, taken by the end's stats and by a held from-device
# hash) must not hang the program: it hung 1 to 2 runs in 6 before.  Eight
# runs, each with and without the destination-hash path, within 30 s each.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
compile_offload "$MAPPROF_SRC/tests/e2e/exit_in_handler.c" "$t/prog" -O1 -g -lpthread
for i in 1 2 3 4; do
	for dmh in 0 1; do
		rc=0
		MAPPROF_DEVICE_MEMORY_HOST=$dmh timeout 30 "$m" record -f -o "$t/r.db" -- "$t/prog" >/dev/null 2>"$t/err" || rc=$?
		[ "$rc" != 124 ] || fail "run $i (MAPPROF_DEVICE_MEMORY_HOST=$dmh): 'mapprof record' hung after the program's _exit from a signal handler"
		assert_eq "$rc" 0 "run $i: exit status (the program's _exit(0)): $(cat "$t/err")"
		n=$(q "$t/r.db" "SELECT count(*) FROM data_ops")
		[ "$n" -gt 0 ] || fail "run $i: no data operations recorded"
	done
done
echo "ok: 8 runs ended by _exit() in a signal handler, none hung"
