#!/usr/bin/env bash
# plans_rounds.sh - the fix loop's second round: plans that stay productive
# after the first one is applied.  tests/hazards/two_kernels_one_loop.c
# has two kernels with their own map clauses in one time loop.
# Round 1: each directive's plan would wrap that loop; the first (most
# savings) keeps its region and patch, the other says it is covered by it
# (edit.covered_by 1, no patch) instead of a second region around the
# same loop.  Plan 1's patch adds updates: it says which transfers they
# still make (edit.kept_transfers, kept_ns: left out of its savings), and
# the patched program makes exactly those.  Plan 1's patch applied: the
# program prints the same.
# Round 2, recorded again: fewer findings, and no plan wraps the loop in a
# region again (it is inside plan 1's now) nor wraps a loop around a
# 'target update' (a region never makes an update move less).
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
command -v patch >/dev/null || skip "no patch (apt-get install patch)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
name=two_kernels_one_loop
mkdir "$t/r1" "$t/r2"
cp "$MAPPROF_SRC/tests/hazards/$name.c" "$t/r1/"
(cd "$t/r1" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c" -lm) || fail "cannot build $name.c"
(cd "$t/r1" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record: $(cat "$t/r1/err")"
"$m" report -q --no-html --json "$t/r1/r.json" "$t/r1/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"

# Round 1: one region for the loop, the other plan covered by it.
assert_eq "$(jq '[.plans[] | select(.edit.kind == "wrap_loop" and .edit.covered_by == null)] | length' "$t/r1/r.json")" 1 \
	"round 1: plans that wrap the loop in a region of their own"
assert_eq "$(jq -c '[.plans[1].edit.covered_by, .plans[1].edit.patch]' "$t/r1/r.json")" "[1,null]" \
	"round 1: plan 2 covered by plan 1, without a patch"
jq -r '.plans[1].edit.text' "$t/r1/r.json" | grep -q "^Covered by plan 1, which wraps the same loop" ||
	fail "round 1: plan 2 does not say it is covered: $(jq -r '.plans[1].edit.text' "$t/r1/r.json")"
jq -r '.plans[0].edit.patch // empty' "$t/r1/r.json" >"$t/p1.diff"
[ -s "$t/p1.diff" ] || fail "round 1: plan 1 has no patch: $(jq -r '.plans[0].edit.unsure' "$t/r1/r.json")"

kept=$(jq '.plans[0].edit.kept_transfers' "$t/r1/r.json")
[ "$kept" -gt 0 ] || fail "round 1: plan 1 keeps no transfer, though its patch adds updates"
[ "$(jq '.plans[0].edit.kept_ns > 0' "$t/r1/r.json")" = true ] || fail "round 1: plan 1's kept transfers cost nothing"
jq -r '.plans[0].edit.patch' "$t/r1/r.json" | grep -q '^+#pragma omp target update from' ||
	fail "round 1: plan 1's patch has no update (the program changed?)"

# Plan 1 applied.
cp "$t/r1/$name.c" "$t/r2/"
(cd "$t/r2" && patch -p1 -s <"$t/p1.diff") || fail "plan 1's patch does not apply"
(cd "$t/r2" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c" -lm) || fail "cannot build $name.c with plan 1"
(cd "$t/r2" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record (round 2): $(cat "$t/r2/err")"
assert_eq "$(cat "$t/r2/out")" "$(cat "$t/r1/out")" "the program's output with plan 1"
"$m" report -q --no-html --json "$t/r2/r.json" "$t/r2/r.db" 2>"$t/err" || fail "report (round 2): $(cat "$t/err")"
# What plan 1 said its patch keeps is what the patched program moves in the loop: its updates.
assert_eq "$(q "$t/r2/r.db" "SELECT COUNT(*) FROM data_ops WHERE op = 'from_device' AND bytes = 4096 * 8")" "$kept" \
	"the transfers the patched program's updates make (plan 1's kept_transfers)"
n1=$(jq '.findings | length' "$t/r1/r.json")
n2=$(jq '.findings | length' "$t/r2/r.json")
[ "$n2" -lt "$n1" ] || fail "plan 1 removed no finding ($n1 -> $n2)"

# Round 2: no region nested in plan 1's, no region around an update.
nested=$(jq -r '.plans[] | .edit.patch // empty' "$t/r2/r.json" | grep -c '^+.*#pragma omp target data' || true)
assert_eq "$nested" 0 "round 2: patches that add a 'target data' region"
assert_eq "$(jq '[.plans[] | select(.edit.kind == "wrap_loop")] | length' "$t/r2/r.json")" 0 "round 2: wrap_loop plans"
jq -r '.plans[].edit.text' "$t/r2/r.json" | grep -q "already inside the 'target data' region" ||
	fail "round 2: no plan says the loop is inside plan 1's region: $(jq -r '.plans[].edit.text' "$t/r2/r.json")"
echo "ok: round 1 one region and a covered plan; round 2 nothing nested ($n1 -> $n2 findings)"
