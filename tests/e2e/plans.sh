#!/usr/bin/env bash
# plans.sh - a fix plan's patch is real: it applies, the patched program
# compiles, and recorded again it has fewer findings and less to save.
#
# For round_trip.c (the top plan wraps the loop in 'target data') and
# jacobi_like.c (the top plan maps f 'to' instead of 'tofrom'): copy the
# sample to a temporary directory, build it with -g, record, report, take
# the top plan's edit.patch from report.json, 'patch -p1' it in the source
# root, build, record, report again and compare.
. "$(dirname "$0")/lib.sh"

bin=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v patch >/dev/null || skip "patch is missing (apt-get install patch)"
[ -x "$bin" ] || fail "no '$bin' (hint: make)"

# run DIR NAME TAG: build DIR/NAME.c, record and report it as DIR/TAG.json.
run() {
	(cd "$1" && ompcc -g -O1 -o "$2" "$2.c") || fail "$2: cannot compile ($3)"
	"$bin" record -f -o "$1/$3.db" -- "$1/$2" >"$1/$3.out" 2>"$1/$3.log" || fail "$2: record failed: $(cat "$1/$3.log")"
	"$bin" report -q --no-html --json "$1/$3.json" "$1/$3.db" 2>>"$1/$3.log" || fail "$2: report failed"
}

for name in round_trip jacobi_like; do
	dir=$(tmpdir)
	cp "$MAPPROF_SRC/samples/$name.c" "$dir/"
	run "$dir" "$name" before
	kind=$(jq -r '.plans[0].edit.kind' "$dir/before.json")
	jq -r '.plans[0].edit.patch // empty' "$dir/before.json" >"$dir/top.patch"
	[ -s "$dir/top.patch" ] || fail "$name: the top plan ($kind) has no patch"
	root=$(jq -r '.source_root // empty' "$dir/before.json")
	[ -n "$root" ] && [ -d "$root" ] || root=$dir
	(cd "$root" && patch -p1 --dry-run <"$dir/top.patch" >/dev/null) || fail "$name: the patch does not apply: $(cat "$dir/top.patch")"
	(cd "$root" && patch -p1 -s <"$dir/top.patch") || fail "$name: patch failed"
	run "$dir" "$name" after
	nb=$(jq '.findings | length' "$dir/before.json")
	na=$(jq '.findings | length' "$dir/after.json")
	sb=$(jq '.summary.savings_ns // ([.findings[].savings_ns] | add) // 0' "$dir/before.json")
	sa=$(jq '.summary.savings_ns // ([.findings[].savings_ns] | add) // 0' "$dir/after.json")
	echo "$name: top plan '$kind': findings $nb -> $na, plans $(jq '.plans | length' "$dir/before.json") -> $(jq '.plans | length' "$dir/after.json")"
	[ "$na" -lt "$nb" ] || fail "$name: the patched program has $na findings, not fewer than $nb"
	echo "$name: savings $sb ns -> $sa ns"
	# The patched program computes the same: the suggestion changed no result.
	diff -u "$dir/before.out" "$dir/after.out" || fail "$name: the patched program prints something else"
done
echo "ok"
