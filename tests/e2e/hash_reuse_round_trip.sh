#!/usr/bin/env bash
# Write tracking (collector/wtrack.c) steps aside for a range sent twice
# between its copies back (tests/e2e/hash_reuse_round_trip.c, the published
# tool's "torture" program): each round trip (unprotect for the copy back,
# protect after it) costs more than hashing the range twice, so it is given
# up at its first copy back, where its pages are unprotected anyway
# (round_trip_loses()), and not tried again while it is sent no more often
# between copies (round_trips_lose()).  At most the calibration's change
# and one trial's two (protect, unprotect for the copy): 5 or more before,
# a round trip more and the give-up's unprotection (torture: 14-20 ms of a
# 0.7 s run, 8-10 after).  Where protection is cheap enough that the round
# trips pay, more changes are right, and the test then asks that write
# tracking cost less than the hashing it saved.  The hashes stay exactly
# those of MAPPROF_HASH_REUSE=0.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)

compile_offload "$MAPPROF_SRC/tests/e2e/hash_reuse_round_trip.c" "$t/rt" -O1 -g

export OMP_NUM_THREADS=2
MAPPROF_HASH_REUSE=0 record_prog "$t/off.db" "$t/rt" >"$t/out0"
record_prog "$t/on.db" "$t/rt" >"$t/out1"
assert_eq "$(cat "$t/out1")" "$(cat "$t/out0")" "the program's result"
n=$(q "$t/off.db" "SELECT COUNT(*) FROM data_ops WHERE op = 'to_device' AND bytes = 4194304")
[ "$n" -ge 300 ] || fail "expected 300 sends of the array, got $n"
assert_eq "$(transfer_hashes "$t/on.db" | md5sum)" "$(transfer_hashes "$t/off.db" | md5sum)" "hashes with reuse on and off"
if [ "$(stat_of "$t/on.db" hash_reuse)" != 1 ]; then
	skip "hashes equal, but this kernel ($(uname -r)) has no asynchronous userfaultfd write protection and PAGEMAP_SCAN (Linux 6.7+)"
fi
protects=$(stat_of "$t/on.db" hash_wtrack_protects)
[ -n "$protects" ] || fail "no hash_wtrack_protects in stats"
if [ "$protects" -gt 3 ]; then
	# Round trips kept: only right where they paid.  What hashing the bytes
	# reused would have cost, at the rate of the run without reuse (its
	# collector's own time per byte hashed: an upper bound, with no write
	# tracking in it), against write tracking's time.
	own_off=$(stat_of "$t/off.db" collector_own_ns)
	bytes_off=$(stat_of "$t/off.db" hash_bytes)
	paid=$(q "$t/on.db" "SELECT (SELECT value FROM stats WHERE name = 'hash_wtrack_ns') <=
		(SELECT value FROM stats WHERE name = 'hash_reused_bytes') * 1.0 * $own_off / $bytes_off")
	[ "$paid" = 1 ] || fail "write tracking changed protection $protects times (at most 3: the calibration, one trial's protect and unprotect) and cost more than the hashing it saved: $(q "$t/on.db" "SELECT group_concat(name || '=' || value, ' ') FROM stats WHERE name IN ('hash_wtrack_ns', 'hash_reused_bytes', 'collector_own_ns', 'hash_bytes')")"
fi
echo "ok: a range sent twice between copies back: $protects protection changes in $n sends"
