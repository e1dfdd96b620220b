#!/usr/bin/env bash
# A from-device transfer's hash is taken where its copy is known complete
# (collector.c: the construct's end, a delete, a nowait task's completion),
# never at the data op's end callback, which a GPU plugin fires before its
# asynchronous copy has filled the host buffer.  Host offload copies at once,
# so each deferred hash must equal what the end callback sees.
# MAPPROF_DEVICE_MEMORY_HOST=0 makes the host-offload devices take the GPU
# path.  By default host offload hashes the host destination at the op's
# end, where its copy is complete (the cheaper read there, collector/hash.h);
# MAPPROF_DEVICE_MEMORY_HOST=1 hashes the device buffer while the runtime
# copies it.  Every sample and a nowait 'target update from' program,
# recorded the three ways, must give the same hashes and the same findings;
# with =0 every from-device hash is taken at a completion point (none at the
# op's end, none late at the process's end); by default every one at its
# copy's end (hash_from_at_copy_end), none during the copy; with =1 none at
# a completion point.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof

compile_offload "$MAPPROF_SRC/tests/e2e/hash_deferred_nowait.c" "$t/nowait_update" -O1 -g
hashes() { q "$1" "SELECT op, bytes, hash FROM data_ops WHERE hash IS NOT NULL" | sort; }
stat_of() { q "$1" "SELECT coalesce((SELECT value FROM stats WHERE name = '$2'), 'missing')"; }
completed() {  # DB: from-device hashes taken at a completion point ($s: the program)
	local at=0 v k
	for k in construct_end delete task_end; do
		v=$(stat_of "$1" hash_from_at_$k)
		[ "$v" != missing ] || fail "$s: no hash_from_at_$k in $(basename "$1")'s stats"
		at=$((at + v))
	done
	echo "$at"
}
findings() { "$m" report --json - "$1" 2>/dev/null | jq -c '[.findings[] | {kind, flavour, bytes, occurrences}] | sort'; }

progs=("$t/nowait_update")
for s in duplicate_transfer round_trip repeated_alloc unused_alloc unused_transfer well_mapped \
	 nowait_threads two_devices offload_in_library exit_in_data_region jacobi_like; do
	[ -x "$MAPPROF_BUILD/samples/$s" ] || fail "sample $s not built"
	progs+=("$MAPPROF_BUILD/samples/$s")
done
total=0
for p in "${progs[@]}"; do
	s=$(basename "$p")
	MAPPROF_DEVICE_MEMORY_HOST=1 record_prog "$t/src.db" "$p" >/dev/null
	record_prog "$t/def.db" "$p" >/dev/null
	MAPPROF_DEVICE_MEMORY_HOST=0 record_prog "$t/dst.db" "$p" >/dev/null
	from=$(q "$t/dst.db" "SELECT count(*) FROM data_ops WHERE op = 'from_device' AND bytes > 0")
	assert_eq "$(completed "$t/src.db")" 0 "$s: from-device transfers hashed at a completion point, the device buffer hashed during the copy"
	for db in "$t/def.db" "$t/dst.db"; do
		w=$(basename "$db" .db)
		assert_eq "$(hashes "$db")" "$(hashes "$t/src.db")" "$s ($w): hashes of the destination and of the source"
		assert_eq "$(findings "$db")" "$(findings "$t/src.db")" "$s ($w): findings"
		assert_eq "$(stat_of "$db" hash_from_late)" 0 "$s ($w): hashes taken late (at the thread's or process's end)"
		assert_eq "$(stat_of "$db" hash_from_at_op_end)" 0 "$s ($w): hashes taken at the op's end for want of room"
	done
	assert_eq "$(completed "$t/dst.db")" "$from" "$s (device memory not read): from-device transfers hashed at a completion point"
	assert_eq "$(completed "$t/def.db")" 0 "$s: from-device transfers hashed at a completion point, host offload's copies complete at the op's end"
	assert_eq "$(stat_of "$t/def.db" hash_from_at_copy_end)" "$from" "$s: from-device transfers hashed at their copy's end"
	assert_eq "$(stat_of "$t/def.db" hash_from_during_copy)" 0 "$s: from-device transfers hashed from the device buffer during the copy"
	total=$((total + from))
	if [ "$s" = nowait_update ]; then
		# Four 'target update from(a) nowait': no construct end or delete completes them, their tasks do.
		# And a 'target nowait map(from: b)' kernel: its copy belongs to its task too (the
		# construct's end comes before the copy is done on a GPU: seen on an H200).
		assert_eq "$(stat_of "$t/dst.db" hash_from_nowait)" 5 "$s: from-device transfers of nowait constructs"
		[ "$(stat_of "$t/dst.db" hash_from_at_task_end)" -ge 4 ] ||
			fail "$s: hashed at the nowait task's completion: $(stat_of "$t/dst.db" hash_from_at_task_end), want 4 or more"
	fi
done
echo "ok: $total from-device transfers in ${#progs[@]} programs hashed at their copies' ends and at completion points, hashes and findings unchanged"
