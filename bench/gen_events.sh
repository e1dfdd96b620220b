#!/usr/bin/env bash
# gen_events.sh OUT.db [ITERATIONS [THREADS DEVICES]] - write a synthetic
# run (9 events per iteration; the default 1111111 gives ten million) for
# 'mapprof report', on THREADS host threads and DEVICES devices (2 and 2).
set -eu
out=$1 iters=${2:-1111111} threads=${3:-2} devices=${4:-2}
mkdir -p "$(dirname "$out")"
src=$(cd "$(dirname "$0")/.." && pwd)
rm -f "$out" "$out-wal" "$out-shm"
sqlite3 "$out" < "$src/db/schema.sql"
sqlite3 "$out" -cmd ".parameter set @iters $iters" -cmd ".parameter set @threads $threads" \
	-cmd ".parameter set @devices $devices" ".read $src/bench/gen_events.sql" >/dev/null
