#!/usr/bin/env bash
# record_fds.sh - a program that closes every descriptor it did not open
# (3..1023, as daemons do) and opens its own files, which take the numbers
# of the collector's spool and of record's pipe: the collector never reads,
# writes or closes them (each file holds exactly what the program wrote,
# compared with a run without mapprof), and still records every event
# (not "the recorder was gone").  With the default ring and with
# MAPPROF_RING_CHUNKS=0 (the collector writes every buffer itself), and
# under a descriptor limit of 1024, where the collector's high numbers are
# among those the program closes (it opens the spool again by its path).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
prog=$MAPPROF_BUILD/samples/procs/fd_closer
[ -x "$prog" ] || fail "no '$prog' (hint: make samples)"
dir=$(tmpdir)

mkdir "$dir/plain"
(cd "$dir/plain" && "$prog" >out.txt) || fail "fd_closer fails without mapprof"

for limit in default 1024; do
	for chunks in 64 0; do
		run=$dir/run.$limit.$chunks
		mkdir "$run"
		rc=0
		(
			cd "$run"
			[ "$limit" == default ] || ulimit -n "$limit"
			MAPPROF_RING_CHUNKS=$chunks "$mapprof" record -o fd.db -- "$prog" >out.txt 2>rec.err
		) || rc=$?
		what="limit $limit, MAPPROF_RING_CHUNKS=$chunks"
		assert_eq "$rc" 0 "$what: exit status ($(cat "$run/rec.err"))"
		for f in out.txt victim_0.txt victim_1.txt victim_2.txt victim_3.txt; do
			cmp -s "$dir/plain/$f" "$run/$f" || fail "$what: $f differs from a run without mapprof"
		done
		grep -q "gone" "$run/rec.err" && fail "$what: the collector thought record was gone: $(cat "$run/rec.err")"
		assert_eq "$(db_counts "$run/fd.db")" "alloc=1500 to_device=1500 from_device=1500 delete=1500 kernel=1500" \
			"$what: events"
		assert_eq "$(q "$run/fd.db" "SELECT status FROM run")" complete "$what: status"
		echo "ok $what"
	done
done
