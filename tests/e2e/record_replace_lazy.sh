#!/usr/bin/env bash
# record_replace_lazy.sh - 'mapprof record -f' over an existing database
# swaps the new one in (renameat2 RENAME_EXCHANGE) and removes the old one,
# rather than renaming over it: on ext4 a rename over an existing file
# writes the new file's blocks out first (auto_da_alloc), 35-50 ms for the
# 83 MB database of a 1.8 M-event run on this VM, where a recording never
# pays for fsync (db/db.c).  Seen from outside: right after 'record -f'
# returns, the new database's blocks are still delayed allocations
# (filefrag: delalloc), as after a first recording; 34db1d3's rename had
# them allocated.  The replacement stays whole: the new events there,
# integrity_check ok, no file left beside it.  ext4 only (filefrag needed).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
command -v filefrag >/dev/null 2>&1 || skip "filefrag is missing (e2fsprogs)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
fs=$(stat -f -c %T .)
case $fs in
ext2/ext3) ;;  # what stat calls ext4 too
*) skip "the temporary directory is on $fs, not ext4 (the rename's flush is ext4's)" ;;
esac
compile_offload "$MAPPROF_SRC/bench/launch_heavy.c" heavy -O2

"$mapprof" record -o run.db -- ./heavy 2000 >/dev/null 2>err || fail "record: $(cat err)"
"$mapprof" record -f -o run.db -- ./heavy 20000 >/dev/null 2>err || fail "record -f: $(cat err)"
frag=$(filefrag -v run.db)
echo "$frag" | grep -q delalloc ||
	fail "the replacing database's blocks were written out by the replacement (no delalloc extent): $frag"
assert_eq "$(sqlite3 run.db 'SELECT count(*) FROM kernel_raw')" 20000 "kernels in the replacing database"
assert_eq "$(sqlite3 run.db 'PRAGMA integrity_check')" ok "integrity_check"
left=$(ls -A | grep -v -x -e heavy -e run.db -e err || true)
[ -z "$left" ] || fail "left beside the database: $left"
echo "ok: replaced, its blocks not forced out"
