#!/usr/bin/env bash
# record_db_late.sh - 'mapprof record' writes the empty database, starts the
# program, and opens the database (SQLite's first statements) while the
# program starts.  When that opening fails after the program started (here:
# a disk with room for the file and the spool's first events, none for
# SQLite's journal), the program still runs to its end, record says why and
# keeps the spool with the command that recovers it, leaves no empty
# database, and 'mapprof recover' builds the whole run once there is room.
# The disk is a small tmpfs (needs root: skipped without it).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
mkdir disk
image=$(stat -c %s "$MAPPROF_BUILD/gen/empty.db") || fail "no empty database image in the build"
mount -t tmpfs -o size=$((image / 1024 + 12))k tmpfs disk 2>/dev/null || skip "cannot mount a tmpfs (needs root)"
trap 'umount "$d/disk" 2>/dev/null; rm -rf "$_E2E_TMP"' EXIT

cat >p.c <<'C'
#include <stdio.h>
int main(void)
{
	double a[64] = { 0 };
	for (int t = 0; t < 3; t++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < 64; i++)
			a[i] += i;
	}
	printf("done %g\n", a[63]);
	return 4;
}
C
compile_offload p.c p -O1

rc=0
"$mapprof" record -o disk/p.db -- ./p >p.out 2>rec.err || rc=$?
grep -q '^done 189' p.out || { cat rec.err >&2; fail "the program did not run to its end"; }
assert_eq "$rc" 3 "record's exit status when the database cannot be opened"
grep -qF "cannot write 'disk/p.db': database or disk is full" rec.err ||
	{ cat rec.err >&2; df disk >&2; fail "record does not say the database did not fit (the test's sizes?)"; }
grep -qF "recover them with: mapprof recover $d/disk/p.db-spool" rec.err ||
	{ cat rec.err >&2; fail "record does not name the recover command"; }
[ -s disk/p.db-spool ] || fail "the spool is gone"
[ ! -e disk/p.db ] || fail "an empty database was left beside the spool"

mount -o remount,size=64m disk || fail "cannot grow the tmpfs"
"$mapprof" recover disk/p.db-spool 2>r.err || { cat r.err >&2; fail "recover once there is room"; }
assert_eq "$(q disk/p.db "SELECT COUNT(*) FROM kernel_raw")" 3 "kernels recovered"
assert_eq "$(q disk/p.db "SELECT COUNT(*) FROM data_ops WHERE op = 'to_device'")" 3 "to-device copies recovered"
[ ! -e disk/p.db-spool ] || fail "recover left the spool"

# -f over that database: the hint's command replaces it, as record would have.
sed 's/t < 3/t < 5/' p.c >p5.c
compile_offload p5.c p5 -O1
old_size=$(stat -c %s disk/p.db)
mount -o remount,size=$(((old_size + image) / 1024 + 12))k disk || fail "cannot shrink the tmpfs"
rc=0
"$mapprof" record -f -o disk/p.db -- ./p5 >p5.out 2>rec5.err || rc=$?
assert_eq "$rc" 3 "record -f's exit status when the new database cannot be opened"
cmd=$(sed -n "s/.*recover them with: //p" rec5.err)
case $cmd in
"mapprof recover -f -o disk/p.db "*) ;;
*) cat rec5.err >&2; fail "record -f's hint does not replace the old database: '$cmd'" ;;
esac
grep -qF "the program exited with status 4" rec5.err || { cat rec5.err >&2; fail "the program's status is not said"; }
assert_eq "$(q disk/p.db "SELECT COUNT(*) FROM kernel_raw")" 3 "the old database, left as it was"
mount -o remount,size=64m disk || fail "cannot grow the tmpfs"
eval "\"$mapprof\" ${cmd#mapprof }" 2>r5.err || { cat r5.err >&2; fail "the hint's recover command"; }
assert_eq "$(q disk/p.db "SELECT COUNT(*) FROM kernel_raw")" 5 "kernels of the new run in place of the old"
echo "PASS: record_db_late"
