#!/usr/bin/env bash
# attach_slots.sh - a struct mapped with its pointer member's pointee
# ('map(tofrom: s) map(tofrom: s.v[0:N])'): the runtime writes the device
# address of v's copy into s's device copy (it "attaches" the pointer), so
# the bytes of s that come back differ from those sent in that slot alone.
# The collector masks such slots in the hashes of both directions
# (collector/attach.h), so (attach_slots.c):
#   - s, which the kernel only reads, comes back unchanged: a round trip
#     (host -> device -> host) of s, and no plan copies s back
#     ('target update from(s)');
#   - w, whose scalar member the kernel changes, still comes back changed:
#     no such round trip, and its plan copies it back;
#   - an array of structs with an attached pointer in each element, and a
#     64 KiB struct (its pointer in its fifth hash chunk), read as unchanged
#     like s; write tracking gives no hash of them (every hash as with
#     MAPPROF_HASH_REUSE=0);
#   - a pointer attached by a later directive than its struct's copy (l, the
#     manual deep copy): the struct's copy to the device was hashed before
#     the slot was known, and its hash is fixed when the database is
#     finished (collector/attach.h): l's copies both ways carry one hash, a
#     round trip; c, whose member the device changed before its pointer was
#     attached, has no known hash for its copy to the device (and no round
#     trip); without reading device memory neither is known; counted in
#     the stats table (hash_attach_late, _fixed, _unknown), every slot in
#     hash_attach_slots, none dropped;
#   - the struct's transfers both ways carry one hash, also where copies
#     back are hashed in the host destination once complete (as on a GPU);
#   - each 8-byte attach is named after the pointer it writes ('s.v
#     (pointer attach)', 'a[2].v (pointer attach)'), not the runtime's
#     buffer it comes from, and the plan whose region removes it claims it;
#     also where the pointee is mapped from its second element (o.v[1:N-1]:
#     the address written lies before the pointee's device buffer).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
cp "$MAPPROF_SRC/tests/e2e/attach_slots.c" as.c
compile_offload as.c as -g
"$mapprof" run -o as --json as.json -- ./as >out 2>err || fail "run: $(cat err)"
grep -qx "4 4 4 16 1 4 5 2 0 4" out || fail "the program's output: $(head -1 out)"
j=as.json
page=$(ls ./*.html 2>/dev/null | head -1)
[ -s "$page" ] || fail "no page written: $(ls)"

line() { grep -n "$1" as.c | head -1 | cut -d: -f1; }
sline=$(line 'map(tofrom: s) map')
wline=$(line 'map(tofrom: w) map')
aline=$(line 'map(tofrom: a\[0:M\])')
bline=$(line 'map(tofrom: big) map')
oline=$(line 'map(tofrom: o) map')
rt() {  # rt LINE VAR: the host->device->host round trips of VAR at LINE
	jq --argjson l "$1" --arg v "$2" '[.findings[] | select(.kind == "round_trip" and .flavour == "host_device_host"
		and .locations[0].line == $l and .variable.name == $v)] | length' $j
}
assert_eq "$(rt "$sline" s)" 1 "round trips (sent back unchanged) of s, which the kernel only reads"
assert_eq "$(rt "$aline" 'a[0:M]')" 1 "round trips (sent back unchanged) of a[0:M], whose elements' pointers are attached"
assert_eq "$(rt "$bline" big)" 1 "round trips (sent back unchanged) of big, a 64 KiB struct"
assert_eq "$(rt "$oline" o)" 1 "round trips (sent back unchanged) of o, its pointee mapped from o.v[1]"
assert_eq "$(rt "$wline" w)" 0 "round trips (sent back unchanged) of w, whose member the kernel changes"
assert_eq "$(rt "$(line 'enter data map(to: l)')" l)" 1 "round trips of l, its pointer attached by a later directive"
assert_eq "$(rt "$(line 'enter data map(to: c)')" c)" 0 "round trips of c, changed by the device before its pointer was attached"

# The runtime attaches every pointer from one buffer of its own: each attach is named after
# the pointer it writes (its map entry, recorded by the collector), never that buffer's address,
# and a plan whose region keeps the struct and its pointee claims the attach it removes.
assert_eq "$(jq '[.findings[] | select(.variable.name | test("^0x"))] | length' $j)" 0 \
	"findings named by an address: $(jq -c '[.findings[] | select(.variable.name | test("^0x")) | .variable.name]' $j)"
for v in s.v o.v w.v 'a[0].v' 'a[1].v' 'a[2].v' 'a[3].v' big.v l.v c.v; do
	assert_eq "$(jq --arg v "$v (pointer attach)" '[.findings[] | select(.variable.name == $v)] | length > 0' $j)" \
		true "a finding of $v's pointer attach"
done
sattach=$(jq --argjson l "$sline" '[.findings[] | select(.variable.name == "s.v (pointer attach)"
	and .locations[0].line == $l) | .id][0]' $j)
assert_eq "$(jq --argjson l "$sline" --argjson f "$sattach" '[.plans[] | select(.directive.line == $l)
	| .findings | index($f) != null] | .[0]' $j)" true \
	"the plan at line $sline claims s.v's pointer attach (#$sattach), which its region removes"
oattach=$(jq --argjson l "$oline" '[.findings[] | select(.variable.name == "o.v (pointer attach)"
	and .locations[0].line == $l) | .id][0]' $j)
assert_eq "$(jq --argjson l "$oline" --argjson f "$oattach" '[.plans[] | select(.directive.line == $l)
	| .findings | index($f) != null] | .[0]' $j)" true \
	"the plan at line $oline claims o.v's pointer attach (#$oattach), the pointee mapped from o.v[1]"
assert_eq "$(q as.mapprof.db "SELECT count(*) FROM data_op_raw WHERE map_index IS NULL AND bytes = 8")" 0 \
	"8-byte transfers recorded without their map entry (attaches the collector did not recognise)"
assert_eq "$(q as.mapprof.db "SELECT count(*) FROM data_op_raw WHERE map_index < -1 AND bytes != 8")" 0 \
	"attaches recorded with a map entry (map_index < -1) that are not 8 bytes"

# The plans: s and a are not copied back (nothing the device did to them), w is.
jq -r '.plans[].edit.patch // empty' $j >patches
grep -q 'target data map(to: s, s.v\[0:N\])' patches || fail "no plan for s: $(grep '^+' patches)"
grep -q 'update from(s)' patches && fail "a plan copies s back, as if the device changed it: $(grep 'update from' patches)"
grep -q 'update from(a\[0:M\])' patches && fail "a plan copies a back, as if the device changed it: $(grep 'update from' patches)"
grep -q 'update from(w)' patches || fail "no plan copies w back, whose member the device changes: $(grep '^+' patches)"
# The page carries the same plans.
grep -q 'update from(w)' "$page" || fail "the page has no 'update from(w)'"
grep -q 'update from(s)' "$page" && fail "the page copies s back"

# The struct's transfers both ways, every iteration: one hash.
db=as.mapprof.db
saddr=$(q $db "SELECT src_addr FROM data_ops WHERE op = 'to_device' AND bytes = 16 ORDER BY seq LIMIT 1")
assert_eq "$(q $db "SELECT count(*) || ' ' || count(DISTINCT hash) FROM data_ops WHERE bytes = 16 AND hash IS NOT NULL
	AND ((op = 'to_device' AND src_addr = $saddr) OR (op = 'from_device' AND dest_addr = $saddr))")" "8 1" \
	"transfers of s and their distinct hashes"

# The same where device memory is not read by the host (as on a GPU): copies back are hashed in
# the host destination once complete (collector.c, held_commit()), masked alike.
MAPPROF_DEVICE_MEMORY_HOST=0 record_prog held.db ./as >/dev/null
[ "$(q held.db "SELECT value FROM stats WHERE name = 'hash_from_at_delete'")" -gt 0 ] ||
	fail "no copy back hashed at a completion point: $(q held.db "SELECT * FROM stats WHERE name LIKE 'hash_from_%'")"
hsaddr=$(q held.db "SELECT src_addr FROM data_ops WHERE op = 'to_device' AND bytes = 16 ORDER BY seq LIMIT 1")
assert_eq "$(q held.db "SELECT count(*) || ' ' || count(DISTINCT hash) FROM data_ops WHERE bytes = 16 AND hash IS NOT NULL
	AND ((op = 'to_device' AND src_addr = $hsaddr) OR (op = 'from_device' AND dest_addr = $hsaddr))")" "8 1" \
	"transfers of s and their distinct hashes, copies back hashed at completion points"

# Write tracking gives no hash of a range with a slot (big is sent again and again unchanged,
# as the 64 KiB arrays beside it that write tracking takes): one hash, as with it off.
MAPPROF_HASH_REUSE=0 record_prog noreuse.db ./as >/dev/null
[ "$(q $db "SELECT value FROM stats WHERE name = 'hash_reuse'")" = 1 ] ||
	echo "note: write tracking is off here (an older kernel?): reuse not compared"
bigs() { q "$1" "SELECT count(*) || ' ' || count(DISTINCT hash) || ' ' || min(hash) FROM data_ops
	WHERE bytes = 65544 AND op IN ('to_device', 'from_device')"; }
b1=$(bigs $db)
assert_eq "${b1% *}" "8 1" "transfers of big and their distinct hashes"
assert_eq "$b1" "$(bigs noreuse.db)" "big's hash with write tracking and without"

stat() { q "${2:-$db}" "SELECT value FROM stats WHERE name = '$1'"; }
assert_eq "$(stat hash_attach_slots)" 34 "slots learned (s, o, w and big: 4 times each, a: 16, l and c: 1)"
assert_eq "$(stat hash_attach_slots_dropped)" 0 "slots dropped"
assert_eq "$(stat hash_attach_unread)" 0 "host slots that could not be read (every struct is mapped)"
assert_eq "$(stat hash_attach_late)" 2 "slots learned after their struct was copied (l, c)"
assert_eq "$(stat hash_attach_late_fixed)" 2 "late slots whose buffers' device copies were hashed again"
assert_eq "$(stat hash_attach_late_unknown)" 0 "late slots whose buffers could not be read"
assert_eq "$(stat hash_attach_late_unknown held.db)" 2 "late slots whose buffers could not be read, device memory not read"
# The last two structs sent: l, then c.  Their hashes both ways (known / not known).
late_hashes() {  # DB OFFSET: "known distinct unknown" of the struct's transfers
	local a
	a=$(q "$1" "SELECT src_addr FROM data_ops WHERE op = 'to_device' AND bytes = 16 ORDER BY seq DESC LIMIT 1 OFFSET $2")
	q "$1" "SELECT count(hash) || ' ' || count(DISTINCT hash) || ' ' || (count(*) - count(hash)) FROM data_ops
		WHERE bytes = 16 AND ((op = 'to_device' AND src_addr = $a) OR (op = 'from_device' AND dest_addr = $a))"
}
assert_eq "$(late_hashes $db 1)" "2 1 0" "l's transfers: hashes known, distinct, not known"
assert_eq "$(late_hashes $db 0)" "1 1 1" "c's transfers: hashes known, distinct, not known (its copy to the device)"
assert_eq "$(late_hashes held.db 1)" "1 1 1" "l's transfers, device memory not read"
assert_eq "$(q $db "SELECT count(*) FROM hash_fix_raw")" 0 "hash fixes left unapplied"
# A fix applied to a hash taken after its slot was known (a copy back hashed late, or a fix
# applied twice) leaves it: the report of a copy with one more fix row, over l's transfers.
lseq=$(q $db "SELECT seq FROM data_ops WHERE op = 'to_device' AND bytes = 16 ORDER BY seq DESC LIMIT 1 OFFSET 1")
lhash=$(q $db "SELECT hash FROM data_op_raw WHERE seq = $lseq")
ldev=$(q $db "SELECT dst_dev FROM data_op_raw WHERE seq = $lseq")
lsrc=$(q $db "SELECT src_addr FROM data_op_raw WHERE seq = $lseq")
cp $db twice.db
q twice.db "INSERT INTO hash_fix_raw (device, host_addr, bytes, slot, from_seq, to_seq, known, old_hash, new_hash)
	VALUES ($ldev, $lsrc, 16, $lsrc + 8, $lseq - 1, $lseq + 1000, 1, 12345, $lhash)" >/dev/null
"$mapprof" report -q --no-html --json twice.json twice.db 2>err || fail "report with a fix row: $(cat err)"
assert_eq "$(q twice.db "SELECT hash FROM data_op_raw WHERE seq = $lseq")" "$lhash" "l's hash after a fix it already had"
assert_eq "$(q twice.db "SELECT count(*) FROM hash_fix_raw")" 0 "the fix row left after the report"

# Eight bytes put into mapped data by omp_target_memcpy are no attached pointer: the device's
# change of those bytes must show (a slot's bytes are left out of the hash).
cat >memcpy8.c <<'C'
#include <omp.h>
#include <stdio.h>
int main(void)
{
	static double a[1024];
	int dev = omp_get_default_device(), host = omp_get_initial_device();
	double v = 3.0;
	for (int i = 0; i < 1024; i++)
		a[i] = i;
#pragma omp target enter data map(to: a[0:1024])
	omp_target_memcpy(omp_get_mapped_ptr(a, dev), &v, sizeof(v), 3 * sizeof(double), 0, dev, host);
#pragma omp target update to(a[0:1024])
#pragma omp target
	a[3] = 42.0;   /* the only change the device makes */
#pragma omp target exit data map(from: a[0:1024])
	printf("a[3]=%g\n", a[3]);
	return 0;
}
C
compile_offload memcpy8.c memcpy8 -O1
record_prog m8.db ./memcpy8 >/dev/null
assert_eq "$(q m8.db "SELECT value FROM stats WHERE name = 'hash_attach_slots'")" 0 "slots learned from an 8-byte omp_target_memcpy"
assert_eq "$(q m8.db "SELECT count(DISTINCT hash) FROM data_ops WHERE bytes = 8192 AND op IN ('to_device', 'from_device')")" 2 \
	"hashes of a's update and its copy back (the device changed a[3])"
echo ok
