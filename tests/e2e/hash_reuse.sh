#!/usr/bin/env bash
# Write tracking (collector/wtrack.c) reuses a host range's hash only when
# nobody wrote it: tests/e2e/hash_reuse.c sends ranges again after writes
# of every kind (a store, memset, read(), MADV_DONTNEED, another thread,
# round trips, overlapping ranges, free/malloc, realloc, munmap/mmap at the
# same address, a privately mapped file that changes).  Recorded with
# MAPPROF_HASH_REUSE=0 (every byte hashed) and with the default, every
# transfer's hash must be the same, and the default must have reused some.
# The samples too: their hashes with and without reuse are the same.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)

compile_offload "$MAPPROF_SRC/tests/e2e/hash_reuse.c" "$t/hash_reuse" -O1 -g -lpthread
hashes() { q "$1" "SELECT seq, op, bytes, src_addr, dest_addr, hash FROM data_ops WHERE hash IS NOT NULL ORDER BY seq"; }

MAPPROF_HASH_REUSE=0 record_prog "$t/off.db" "$t/hash_reuse" >/dev/null
record_prog "$t/on.db" "$t/hash_reuse" >/dev/null
hashes "$t/off.db" >"$t/off.txt"
hashes "$t/on.db" >"$t/on.txt"
n=$(wc -l <"$t/off.txt")
[ "$n" -ge 36 ] || fail "expected at least 36 hashed transfers, got $n"
# seq and addresses differ between runs only if the program's layout does; compare the hashes in order.
cut -d'|' -f2,3,6 "$t/off.txt" >"$t/off.h"
cut -d'|' -f2,3,6 "$t/on.txt" >"$t/on.h"
diff "$t/off.h" "$t/on.h" >"$t/diff" || fail "hashes differ with reuse on:
$(head -20 "$t/diff")"
assert_eq "$(stat_of "$t/off.db" hash_reused_bytes)" 0 "bytes reused with MAPPROF_HASH_REUSE=0"
assert_eq "$(stat_of "$t/off.db" hash_reuse)" 0 "hash_reuse with MAPPROF_HASH_REUSE=0"
assert_eq "$(stat_of "$t/on.db" hash_chunk_bytes)" 16384 "the hash's chunk size in stats"
# Identical content must still be seen as identical: the unchanged sends share a hash.
first=$(sed -n 1p "$t/on.h")
assert_eq "$(sed -n 2p "$t/on.h")" "$first" "second unchanged send"
[ "$(sed -n 5p "$t/on.h")" != "$first" ] || fail "a written element left the hash unchanged"

reuse=$(stat_of "$t/on.db" hash_reuse)
if [ "$reuse" != 1 ]; then
	skip "hashes equal, but this kernel ($(uname -r)) has no asynchronous userfaultfd write protection and PAGEMAP_SCAN (Linux 6.7+), so no hash was reused"
fi
reused=$(stat_of "$t/on.db" hash_reused_bytes)
read_on=$(stat_of "$t/on.db" hash_bytes)
read_off=$(stat_of "$t/off.db" hash_bytes)
[ "$reused" -gt $((16 << 20)) ] || fail "expected more than 16 MiB of hashes reused, got $reused"
[ "$read_on" -lt "$read_off" ] || fail "reuse read $read_on bytes, no fewer than without ($read_off)"

# The samples: the same hashes with reuse on and off.
for s in duplicate_transfer round_trip jacobi_like well_mapped; do
	p=$MAPPROF_BUILD/samples/$s
	[ -x "$p" ] || continue
	MAPPROF_HASH_REUSE=0 record_prog "$t/s0.db" "$p" >/dev/null
	record_prog "$t/s1.db" "$p" >/dev/null
	assert_eq "$(hashes "$t/s1.db" | cut -d'|' -f2,3,6 | md5sum)" \
		"$(hashes "$t/s0.db" | cut -d'|' -f2,3,6 | md5sum)" "$s: hashes with reuse on and off"
done
echo "ok: $n transfers hashed the same with reuse on and off; $((reused >> 20)) MiB reused, $((read_on >> 20)) MiB read (off: $((read_off >> 20)) MiB)"
