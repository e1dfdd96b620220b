#!/usr/bin/env bash
# Write tracking (collector/wtrack.c) must cost no more than the hashing it
# saves (issue 29: bench/real/cg.naive was 10 % over a collector that
# hashes every byte, on 16 cores).  tests/e2e/hash_reuse_cost.c is cg's
# shape: a 1 MiB matrix sent unchanged 400 times (reused), and two 64 KiB
# vectors that go to the device and back between their sends (a round trip
# costs two protection changes, each a TLB shootdown on every core the
# program runs on, and a scan, to save one 64 KiB hash).  The vectors must
# be given up after a short trial and left alone long enough: at most 30
# protection changes in the run, where 706ec87 tried each vector again
# every 256 sends or fewer for four round trips (44-59 under strace here).
# The hashes stay exactly those of MAPPROF_HASH_REUSE=0, and the matrix's
# hash is still reused.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof

compile_offload "$MAPPROF_SRC/tests/e2e/hash_reuse_cost.c" "$t/cost" -O1 -g

export OMP_NUM_THREADS=2
MAPPROF_HASH_REUSE=0 record_prog "$t/off.db" "$t/cost" >"$t/out0"
record_prog "$t/on.db" "$t/cost" >"$t/out1"
assert_eq "$(cat "$t/out1")" "$(cat "$t/out0")" "the program's result"
n=$(transfer_hashes "$t/off.db" | wc -l)
[ "$n" -ge 2000 ] || fail "expected at least 2000 hashed transfers, got $n"
assert_eq "$(transfer_hashes "$t/on.db" | md5sum)" "$(transfer_hashes "$t/off.db" | md5sum)" "hashes with reuse on and off"
assert_eq "$(stat_of "$t/off.db" hash_wtrack_protects)" 0 "protection changes with MAPPROF_HASH_REUSE=0"

if [ "$(stat_of "$t/on.db" hash_reuse)" != 1 ]; then
	skip "hashes equal, but this kernel ($(uname -r)) has no asynchronous userfaultfd write protection and PAGEMAP_SCAN (Linux 6.7+)"
fi
protects=$(stat_of "$t/on.db" hash_wtrack_protects)
[ -n "$protects" ] || fail "no hash_wtrack_protects in stats"
[ "$protects" -le 30 ] || fail "write tracking changed protection $protects times (at most 30: the vectors' round trips never pay)"
reused=$(stat_of "$t/on.db" hash_reused_bytes)
[ "$reused" -ge $((100 << 20)) ] || fail "expected at least 100 MiB of the matrix's hashes reused, got $reused"

# The same counted by the kernel's side, where strace is at hand (the
# collector's own count could be wrong): calibration's one protection more.
if command -v strace >/dev/null 2>&1; then
	# (LeakSanitizer cannot run under ptrace: a sanitized build's mapprof would fail.)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -f -qq -e trace=ioctl -o "$t/strace" "$m" record -f -o "$t/st.db" -- "$t/cost" >/dev/null 2>"$t/err" ||
		fail "record under strace: $(cat "$t/err")"
	wp=$(grep -c UFFDIO_WRITEPROTECT "$t/strace")
	[ "$wp" -le 31 ] || fail "under strace: $wp UFFDIO_WRITEPROTECT calls (at most 31)"
	assert_eq "$(transfer_hashes "$t/st.db" | md5sum)" "$(transfer_hashes "$t/off.db" | md5sum)" "hashes under strace"
else
	echo "note: no strace (apt-get install strace; make test-deps installs it): the kernel's count not checked"
fi
echo "ok: $n transfers hashed the same with reuse on and off; $protects protection changes, $((reused >> 20)) MiB reused"
