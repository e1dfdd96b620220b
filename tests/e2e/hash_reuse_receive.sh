#!/usr/bin/env bash
# Write tracking (collector/wtrack.c) steps aside for a range that only
# receives data: bench/real/monitor.c -DFIXED sends its field once
# ('target data map(to:)') and brings it back every step ('target update
# from') for the host to read.  Protecting the field again after each copy
# back saves nothing (it is never sent again) and cost two protection
# changes a step (400 in 200 steps: recording took 2-3x the program's time
# on the 2-core VM); a trial at its first copy back (tracked for a send
# that never comes) cost 1.5 % of the run.  A range sent once is not
# tracked at its copies back: no protection change in the run but the one
# by which write tracking times a fault at its start (wtrack.c
# calibrate()).  One sent again and again is (tests/e2e/hash_reuse_cost.sh).
# The hashes stay exactly those of MAPPROF_HASH_REUSE=0.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)

compile_offload "$MAPPROF_SRC/bench/real/monitor.c" "$t/monitor" -O1 -g -DFIXED -lm

MAPPROF_HASH_REUSE=0 record_prog "$t/off.db" "$t/monitor" 131072 200 >"$t/out0"
record_prog "$t/on.db" "$t/monitor" 131072 200 >"$t/out1"
assert_eq "$(cat "$t/out1")" "$(cat "$t/out0")" "the program's result"
n=$(q "$t/off.db" "SELECT COUNT(*) FROM data_ops WHERE op = 'from_device' AND bytes = 131072 * 8")
[ "$n" -ge 200 ] || fail "expected 200 copies of the field back, got $n"
assert_eq "$(transfer_hashes "$t/on.db" | md5sum)" "$(transfer_hashes "$t/off.db" | md5sum)" "hashes with reuse on and off"
if [ "$(stat_of "$t/on.db" hash_reuse)" != 1 ]; then
	skip "hashes equal, but this kernel ($(uname -r)) has no asynchronous userfaultfd write protection and PAGEMAP_SCAN (Linux 6.7+)"
fi
protects=$(stat_of "$t/on.db" hash_wtrack_protects)
[ -n "$protects" ] || fail "no hash_wtrack_protects in stats"
assert_eq "$protects" 1 "protection changes: the start's calibration alone (none for the field sent once that only comes back)"
echo "ok: a range that only receives data is not tracked ($protects protection changes in 200 copies back)"
