#!/usr/bin/env bash
# samples_tracer.sh - every sample, run twice under the independent tracer,
# must perform exactly the data operations its header comment states, the
# same ones on both runs.  Uses only the tracer, not mapprof: this pins down
# the ground truth the collector's own end-to-end tests compare against.
#
# Checked per sample: exit status 0 and one line on stdout; per-op counts
# equal between the two runs and equal to the table below; the sorted
# traces of the two runs identical (op, devices, bytes and content hashes:
# no addresses or times, so they are deterministic even with nowait); and
# the number of content groups, distinct hashes shared by two or more
# transfers, as stated under "Equal hashes" in the header.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Keep in step with the header comments of samples/*.c.  A new sample must
# add its row here.
#  sample               alloc to_device from_device delete kernel shared
expected='
duplicate_transfer      7     6         3           7      3      2
round_trip              5     5         5           5      5      4
repeated_alloc          10    0         5           10     5      0
unused_alloc            3     1         1           3      1      0
unused_transfer         2     3         1           2      1      0
well_mapped             2     1         1           2      4      0
nowait_threads          6     6         6           6      6      0
two_devices             4     2         2           4      2      1
offload_in_library      6     4         2           6      2      1
exit_in_data_region     2     2         1           0      1      0
jacobi_like             25    21        16          25     8      7
'

# shared_groups TRACE: distinct hashes carried by two or more transfers.
shared_groups() {
	awk -F'\t' '$5 != "-" { n[$5]++ }
		END { g = 0; for (h in n) if (n[h] > 1) g++; print g }' "$1"
}

dir=$(tmpdir)
samples=()
for src in "$MAPPROF_SRC"/samples/*.c; do
	samples+=("$(basename "$src" .c)")
done
[ ${#samples[@]} -gt 0 ] || fail "no samples in '$MAPPROF_SRC/samples'"

for name in "${samples[@]}"; do
	row=$(awk -v n="$name" '$1 == n' <<<"$expected")
	[ -n "$row" ] || fail "$name: no expected counts in $(basename "$0")"
	read -r _ alloc to from del kern shared <<<"$row"
	want="alloc=$alloc to_device=$to from_device=$from delete=$del kernel=$kern"

	for run in 1 2; do
		trace=$dir/$name.$run.tsv
		rc=0
		tracer_run "$trace" "$MAPPROF_BUILD/samples/$name" \
			>"$dir/$name.$run.out" 2>"$dir/$name.$run.err" || rc=$?
		[ "$rc" -eq 0 ] || fail "$name (run $run) exited with $rc:" \
			"$(cat "$dir/$name.$run.err")"
		assert_eq "$(wc -l <"$dir/$name.$run.out")" 1 \
			"$name (run $run): lines on stdout"
		[ ! -s "$dir/$name.$run.err" ] || fail "$name (run $run) wrote" \
			"to stderr: $(cat "$dir/$name.$run.err")"
	done

	got1=$(tracer_counts "$dir/$name.1.tsv")
	got2=$(tracer_counts "$dir/$name.2.tsv")
	assert_eq "$got2" "$got1" "$name: op counts differ between two runs"
	assert_eq "$got1" "$want" "$name: op counts vs. its header comment"
	if ! diff <(sort "$dir/$name.1.tsv") <(sort "$dir/$name.2.tsv") \
		>"$dir/$name.diff"; then
		fail "$name: sorted traces differ between two runs:" \
			"$(cat "$dir/$name.diff")"
	fi
	assert_eq "$(shared_groups "$dir/$name.1.tsv")" "$shared" \
		"$name: groups of transfers with equal content"
	echo "ok $name: $got1 shared=$shared"
done
