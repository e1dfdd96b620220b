#!/usr/bin/env bash
# plans_keep_results.sh - every fix plan keeps the program's results.
#
# For every sample (samples/*.c) and every hazard program (tests/hazards/*.c
# and lost_write/*.c there, shaped like the codes of issue #25: host-read flags, device(1), swapped
# grids, update/enter data that move nothing used, host-written inputs,
# nowait + depend, reductions, a loop in a caller, locals written through a
# helper or another pointer, a section's size set in the loop, a kernel
# first reached at a later pass, a kernel writing its 'to' input, host
# scratch use between a copy in and its copy back, ...) and every program
# of the realistic suite (bench/real/*.c, naive, at the small sizes of
# real_args below): build it with -g
# and -Wall -Werror, record it, report it, then for each plan in
# report.json: its patch applies ('patch -p1' in the source root) to a copy,
# the copy builds with -Wall -Werror, prints the same and exits the same,
# and recorded again has fewer findings; when 'mapprof diff' prints a
# 'results:' line, it says identical.  Then every plan's patch in order on
# one copy: each applies after the ones before it, and together they keep
# the output, the exit status and the results and leave fewer findings.  A plan without a patch must say why
# in edit.unsure (the test then skips it and says so).  Plan texts never
# suggest what does not compile ('target update map(...)').
#
# PLANS_ONLY=NAME... limits the run to those programs (by hand).
. "$(dirname "$0")/lib.sh"

bin=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v patch >/dev/null || skip "patch is missing (apt-get install patch)"
[ -x "$bin" ] || fail "no '$bin' (hint: make)"

failures=0
problem() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# build DIR NAME: compile DIR/NAME.c into DIR/NAME, warnings as errors.
build() {
	local dir=$1 name=$2
	if [ -f "$dir/offload_kernels.c" ]; then
		(cd "$dir" && ompcc -g -O1 -Wall -Werror -fPIC -shared -o liboffload_kernels.so offload_kernels.c) || return 1
		(cd "$dir" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c" -L. -loffload_kernels -Wl,-rpath,"$dir") || return 1
	else
		(cd "$dir" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c" -lm) || return 1
	fi
}

# record DIR NAME TAG: record DIR/NAME as DIR/TAG.db (stdout TAG.out, status
# TAG.rc) and report it as DIR/TAG.json.
# bench/real's programs at sizes that take a second or less recorded
# (their arguments: bench/real/*.c's main()); the others take none.
declare -A real_args=([bfs]="1" [heat]="64 10" [lu]="256 32" [monitor]="4096 10" [stencil]="64 10"
	[stream]="10" [tealeaf]="64 2" [cg]="")
record() {
	local dir=$1 name=$2 tag=$3 rc=0
	# shellcheck disable=SC2086 # the arguments are words
	(cd "$dir" && timeout 60 "$bin" record -f -o "$dir/$tag.db" -- "./$name" ${real_args[$name]:-} \
		>"$dir/$tag.out" 2>"$dir/$tag.log") || rc=$?
	echo "$rc" >"$dir/$tag.rc"
	"$bin" report -q --no-html --json "$dir/$tag.json" "$dir/$tag.db" 2>>"$dir/$tag.log" || return 1
}

# ids_of DIR FINGERPRINTS: the ids those fingerprints have in DIR/before.json.
ids_of() {
	jq -r --arg f "$2" '[.findings[] | select(.fingerprint as $x | $f | split(" ") | index($x)) | .id] | join(",")' \
		"$1/before.json"
}

# check_patched DIR COPY NAME TAG WHAT NB [PATCH [CLAIMED]]: the program in
# COPY (patched) built, recorded as TAG and held against DIR's recording
# 'before' (NB findings): the same output and exit status, fewer findings,
# and 'mapprof diff' saying identical where it can tell; with CLAIMED (the
# fingerprints of the findings a plan says it removes, sorted, one line),
# 'mapprof diff' removed exactly those.  Each problem is counted; PATCH is
# quoted with them.  Returns 1 when the program could not be built or
# recorded.
check_patched() {
	local dir=$1 copy=$2 name=$3 tag=$4 what=$5 nb=$6 patchf=${7:-} claimed=${8:-} before=$failures rc na results quote= removed
	[ -z "$patchf" ] || quote=$'\n'$(cat "$patchf")
	if ! build "$copy" "$name" >"$copy/build.log" 2>&1; then
		problem "$what: the patched program does not build: $(head -20 "$copy/build.log")$quote"
		return 1
	fi
	if ! record "$copy" "$name" "$tag"; then
		problem "$what: the patched program's report failed: $(cat "$copy/$tag.log")"
		return 1
	fi
	diff -u "$dir/before.out" "$copy/$tag.out" >"$copy/out.diff" ||
		problem "$what: the patched program prints something else:"$'\n'"$(cat "$copy/out.diff")$quote"
	rc=$(cat "$copy/$tag.rc")
	[ "$rc" == "$(cat "$dir/before.rc")" ] ||
		problem "$what: the patched program exits $rc, not $(cat "$dir/before.rc")"
	na=$(jq '.findings | length' "$copy/$tag.json")
	[ "$na" -lt "$nb" ] || problem "$what: the patched program has $na findings, not fewer than $nb"
	"$bin" diff --json "$copy/diff.json" "$dir/before.db" "$copy/$tag.db" >"$copy/diff.txt" 2>/dev/null ||
		problem "$what: mapprof diff failed"
	results=$(grep '^results:' "$copy/diff.txt" || true)
	if [ -n "$claimed" ]; then
		# The findings 'mapprof diff' says the patch removed are the plan's.
		removed=$(jq -r '[.removed[].fingerprint] | sort | join(" ")' "$copy/diff.json")
		[ "$removed" == "$claimed" ] ||
			problem "$what: the patch removed findings [$(ids_of "$dir" "$removed")], the plan claims [$(ids_of "$dir" "$claimed")]"
	fi
	if [ -n "$results" ] && ! grep -q identical <<<"$results"; then
		problem "$what: mapprof diff says: $results"
	fi
	[ "$failures" -ne "$before" ] || echo "$what: ok (findings $nb -> $na${results:+; $results})"
}

programs=()
# tests/hazards/lost_write/: programs whose copy back restores the host's
# copy on purpose ('record --check' reports those lost_host_write, so they
# stay out of the mapping-bug-free programs of no_false_positives.sh).
for f in "$MAPPROF_SRC"/samples/*.c "$MAPPROF_SRC"/tests/hazards/*.c "$MAPPROF_SRC"/tests/hazards/lost_write/*.c \
	"$MAPPROF_SRC"/bench/real/*.c; do
	name=$(basename "$f" .c)
	if [ -n "${PLANS_ONLY:-}" ] && ! [[ " $PLANS_ONLY " == *" $name "* ]]; then
		continue
	fi
	programs+=("$f")
done
[ ${#programs[@]} -gt 0 ] || fail "no programs"

checked=0
for f in "${programs[@]}"; do
	name=$(basename "$f" .c)
	dir=$(tmpdir)
	cp "$f" "$dir/"
	[ "$name" != offload_in_library ] || cp "$MAPPROF_SRC/samples/lib/offload_kernels.c" "$dir/"
	build "$dir" "$name" >"$dir/build.log" 2>&1 || { problem "$name: does not build: $(cat "$dir/build.log")"; continue; }
	record "$dir" "$name" before || { problem "$name: report failed: $(cat "$dir/before.log")"; continue; }
	nb=$(jq '.findings | length' "$dir/before.json")
	np=$(jq '.plans | length' "$dir/before.json")
	root=$(jq -r '.source_root // empty' "$dir/before.json")
	[ "$root" == "$dir" ] || root=$dir
	for ((i = 0; i < np; i++)); do
		plan=$(jq -c ".plans[$i]" "$dir/before.json")
		kind=$(jq -r '.edit.kind' <<<"$plan")
		line=$(jq -r '.directive.line // 0' <<<"$plan")
		what="$name: plan $i ($kind, line $line)"
		# Nothing a plan says to write may be invalid OpenMP: a 'target
		# update' has no map clause, an 'enter/exit data' needs one.
		if sed -n "${line}p" "$dir/$name.c" | grep -q 'omp target update' &&
			jq -r '.edit.clauses // ""' <<<"$plan" | grep -q 'map('; then
			problem "$what: suggests map clauses for a 'target update': $(jq -r .edit.text <<<"$plan")"
		fi
		if jq -r '[.edit.text, .edit.clauses, .edit.patch] | map(. // "") | join("\n")' <<<"$plan" |
			grep -qiE 'update[^\n]*map\(|target (enter|exit) data *$'; then
			problem "$what: suggests a directive that does not compile: $(jq -r .edit.text <<<"$plan")"
		fi
		unsure=$(jq -r '.edit.unsure // empty' <<<"$plan")
		jq -r '.edit.patch // empty' <<<"$plan" >"$dir/plan$i.patch"
		if [ ! -s "$dir/plan$i.patch" ]; then
			if [ -n "$unsure" ]; then
				echo "$what: skipped, the plan says it is unsure: $unsure"
			else
				problem "$what: no patch, and the plan does not say why (edit.unsure): $(jq -r .edit.text <<<"$plan")"
			fi
			continue
		fi
		copy=$(tmpdir)
		cp "$dir/$name.c" "$copy/"
		[ ! -f "$dir/offload_kernels.c" ] || cp "$dir/offload_kernels.c" "$copy/"
		if ! (cd "$copy" && patch -p1 -s <"$dir/plan$i.patch") >"$copy/patch.log" 2>&1; then
			problem "$what: the patch does not apply: $(cat "$copy/patch.log") $(cat "$dir/plan$i.patch")"
			continue
		fi
		claimed=$(jq -r --argjson p "$plan" '[.findings[] | select(.id as $i | $p.findings | index($i)) | .fingerprint] | sort | join(" ")' "$dir/before.json")
		check_patched "$dir" "$copy" "$name" after "$what" "$nb" "$dir/plan$i.patch" "$claimed" && checked=$((checked + 1))
	done
	# Every plan with a patch, in order, on one copy: each still applies
	# after those before it (plans do not overlap), and together they pass
	# check_patched() as each one does alone.
	npatched=0
	copy=$(tmpdir)
	cp "$dir/$name.c" "$copy/"
	[ ! -f "$dir/offload_kernels.c" ] || cp "$dir/offload_kernels.c" "$copy/"
	for ((i = 0; i < np; i++)); do
		[ -s "$dir/plan$i.patch" ] || continue
		if ! (cd "$copy" && patch -p1 -s <"$dir/plan$i.patch") >"$copy/patch.log" 2>&1; then
			problem "$name: plan $i's patch does not apply after the plans before it: $(cat "$copy/patch.log")"
			npatched=-1
			break
		fi
		npatched=$((npatched + 1))
	done
	[ "$npatched" -le 1 ] || check_patched "$dir" "$copy" "$name" all "$name: all $npatched patches in order" "$nb"
done
echo "$checked patched programs checked"
[ "$failures" -eq 0 ] || fail "$failures problems"
echo "ok"
