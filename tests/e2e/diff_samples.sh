#!/usr/bin/env bash
# diff_samples.sh - 'mapprof diff' across a real fix of each sample.
# tests/fixed/NAME.c is samples/NAME.c with the fix a developer would make
# for its findings (a target data region around a loop, map(to:) or
# map(alloc:) instead of tofrom, an unused map removed; the lines below a
# fix shift).  Each pair is built as the Makefile builds the samples,
# recorded once a side, and must print the same stdout.  Then the fix's
# findings are 'removed' (the kinds and variables listed below), nothing is
# 'new', and what remains is matched (exact or loose).  The diff the other
# way (fixed -> sample) must report the removed findings as new: the test
# can fail.  Samples without findings are diffed against another run of
# themselves: nothing removed, remaining or new.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
dir=$(tmpdir)
cd "$dir"

# NAME|removed kinds|removed variables (without [..])|remaining
cases="duplicate_transfer|duplicate_transfer,repeated_alloc|a|1
jacobi_like|duplicate_transfer,repeated_alloc,round_trip,unused_alloc,unused_transfer|f,u,unew|3
offload_in_library|duplicate_transfer,repeated_alloc|x|0
repeated_alloc|repeated_alloc|tmp|0
round_trip|repeated_alloc,round_trip|a|1
unused_alloc|unused_alloc|spare|0
unused_transfer|unused_transfer|a|0"
no_findings="exit_in_data_region nowait_threads two_devices well_mapped"

record() { # record DB PROG: stdout to DB.out
	"$mapprof" record -o "$1" -- "$2" >"$1.out" 2>rec.err || fail "record $2: $(cat rec.err)"
}

# build NAME: the fixed copy, as the Makefile builds the sample, to NAME/prog.
build() {
	mkdir "$1"
	if [ "$1" = offload_in_library ]; then
		# The fix is in the caller; the library is the sample's.
		ompcc -g -O1 "$MAPPROF_SRC/tests/fixed/$1.c" -o "$1/prog" \
			-L"$MAPPROF_BUILD/samples" -loffload_kernels -Wl,-rpath,"$MAPPROF_BUILD/samples"
	else
		ompcc -g -O1 "$MAPPROF_SRC/tests/fixed/$1.c" -o "$1/prog"
	fi
}

# The builds take most of the time: in parallel.
pids=()
while IFS='|' read -r name _; do
	[ -x "$MAPPROF_BUILD/samples/$name" ] || fail "no sample '$MAPPROF_BUILD/samples/$name' (hint: make samples)"
	build "$name" 2>"$name.build.err" &
	pids+=("$!:$name")
done <<<"$cases"
for p in "${pids[@]}"; do
	wait "${p%%:*}" || fail "cannot build the fixed ${p#*:}: $(cat "${p#*:}.build.err")"
done

while IFS='|' read -r name kinds vars remaining; do
	prog=$MAPPROF_BUILD/samples/$name
	# The same file name on both sides (a fix edits the file in place).
	record "$name/before.db" "$prog"
	record "$name/after.db" "$name/prog"
	cmp -s "$name/before.db.out" "$name/after.db.out" ||
		fail "$name: the fix changed stdout: '$(cat "$name/before.db.out")' -> '$(cat "$name/after.db.out")'"

	d=$name/d.json
	"$mapprof" diff --json "$d" -q "$name/before.db" "$name/after.db" 2>err.out ||
		fail "$name: diff: $(cat err.out)"
	assert_eq "$(jq -r '[.removed[].kind] | unique | join(",")' "$d")" "$kinds" "$name: kinds removed"
	assert_eq "$(jq -r '[.removed[].variable // "?" | sub("\\[.*"; "")] | unique | join(",")' "$d")" \
		"$vars" "$name: variables of the removed findings"
	assert_eq "$(jq -r '[.new[] | .kind + ":" + (.variable // "?") + "@" + (.line | tostring)] | join(" ")' "$d")" \
		"" "$name: new findings"
	assert_eq "$(jq '.remaining | length' "$d")" "$remaining" "$name: remaining findings"
	assert_eq "$(jq -r '[.remaining[] | select(.match != "exact" and .match != "loose")] | length' "$d")" 0 \
		"$name: remaining findings matched neither exact nor loose"
	assert_eq "$(jq '(.removed | length) + (.remaining | length)' "$d")" "$(jq '.before.findings' "$d")" \
		"$name: every finding before is removed or remains"
	# The fix kept what the program computed (report/compare/outcome.h).
	echo "$name: $(jq -r '.results.summary' "$d")"
	# 'partial': a variable the fix leaves on the device (jacobi_like's u in
	# residual()) is named as not compared; stdout, compared above, is the
	# proof that the host did not read it there.
	case $(jq -r '.results.status' "$d") in
	identical) ;;
	partial) assert_eq "$(jq -r '[.results.differences[].what] | unique | join(",")' "$d")" \
		"not_moved_after" "$name: what was not compared" ;;
	*) fail "$name: the results check: $(jq -r '.results.summary' "$d")" ;;
	esac
	echo "$name: $(jq -r '"removed \(.removed | length) (\([.removed[].kind] | unique | join(", "))), remaining \(.remaining | length)\(if (.remaining | length) > 0 then " (\([.remaining[].match] | group_by(.) | map("\(length) \(.[0])") | join(", ")))" else "" end), new \(.new | length)"' "$d")"

	# The other way round: the fix undone, its findings come back as new.
	r=$name/r.json
	"$mapprof" diff --json "$r" -q "$name/after.db" "$name/before.db" 2>err.out ||
		fail "$name: reverse diff: $(cat err.out)"
	assert_eq "$(jq -r '[(.removed | length), (.remaining | length), ([.new[].kind] | unique | join(","))] | join("|")' "$r")" \
		"0|$remaining|$kinds" "$name: reverse diff (removed|remaining|new kinds)"
	assert_eq "$(jq '.new | length' "$r")" "$(jq '.removed | length' "$d")" "$name: reverse diff's new findings"
done <<<"$cases"
echo "ok each fix removes its findings, nothing new, the rest matched; undone, they come back as new"

for name in $no_findings; do
	prog=$MAPPROF_BUILD/samples/$name
	[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
	record "$name.1.db" "$prog"
	record "$name.2.db" "$prog"
	cmp -s "$name.1.db.out" "$name.2.db.out" || fail "$name: stdout differs between runs"
	"$mapprof" diff --json "$name.json" -q "$name.1.db" "$name.2.db" 2>err.out ||
		fail "$name: diff: $(cat err.out)"
	assert_eq "$(jq -r '[.before.findings, .after.findings, (.removed | length), (.remaining | length), (.new | length)] | join(",")' "$name.json")" \
		"0,0,0,0,0" "$name: findings before, after, removed, remaining, new"
	case $(jq -r '.results.status' "$name.json") in
	identical | not_comparable | partial) ;;
	*) fail "$name: the same program twice: $(jq -r '.results.summary' "$name.json")" ;;
	esac
	echo "$name: no findings, removed 0, remaining 0, new 0"
done
echo "ok samples without findings: nothing removed, remaining or new"
