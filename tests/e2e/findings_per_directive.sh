#!/usr/bin/env bash
# findings_per_directive.sh - one finding per source directive.  A loop the
# compiler unrolls (tests/hazards/unrolled_loop.c, '#pragma clang loop
# unroll(full)' at -O1) calls the runtime from four places for one target
# construct: four code pointers with the same file, line and column.  Its
# findings, kernels table and plan must be those of the same loop kept rolled
# ('unroll(disable)'): as many findings of each kind, listing the call sites
# they came from; one kernel place; the same patch (the region goes above the
# loop's pragma); 'mapprof diff' of the two removes and adds nothing; and a
# 'report --same-program' of two recordings of the unrolled program sees the
# same findings in both.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
src=$MAPPROF_SRC/tests/hazards/unrolled_loop.c
mkdir "$t/u" "$t/r"
cp "$src" "$t/u/"
sed 's/unroll(full)/unroll(disable)/' "$src" >"$t/r/unrolled_loop.c"
for v in u r; do
	(cd "$t/$v" && ompcc -g -O1 -Wall -Werror -o prog unrolled_loop.c) || fail "cannot build ($v)"
	(cd "$t/$v" && "$m" record -f -o r.db -- ./prog >out 2>err) || fail "record ($v): $(cat "$t/$v/err")"
	"$m" report -q --no-html --json "$t/$v/r.json" "$t/$v/r.db" 2>"$t/err" || fail "report ($v): $(cat "$t/err")"
done
assert_eq "$(cat "$t/u/out")" "$(cat "$t/r/out")" "the two programs' output"
line=$(grep -n '#pragma omp target map' "$src" | cut -d: -f1)
sites=$(sqlite3 "$t/u/r.db" "SELECT count(*) FROM location WHERE line = $line")
[ "$sites" -ge 2 ] || fail "the unrolled program has $sites call site(s) on line $line: the compiler did not unroll, so this test proves nothing"
assert_eq "$(sqlite3 "$t/r/r.db" "SELECT count(*) FROM location WHERE line = $line")" 1 "call sites of the rolled loop"

# The same findings, kind by kind and variable by variable.
kinds() { jq -r '[.findings[] | "\(.kind) \(.flavour // "") \(.variable.name // .variable // "")"] | sort | join("\n")' "$1"; }
assert_eq "$(kinds "$t/u/r.json")" "$(kinds "$t/r/r.json")" "the findings (kind, flavour, variable) of the unrolled loop"
[ "$(jq '.findings | length' "$t/u/r.json")" -gt 0 ] || fail "no findings at all"
# Each lists the call sites its operations came from (an occurrence needs a
# first copy to repeat, so not every finding has all four), all on the line.
few=$(jq '[.findings[] | select((.locations | length) < 2)] | length' "$t/u/r.json")
assert_eq "$few" 0 "findings of the unrolled loop that list one call site"
assert_eq "$(jq --argjson l "$line" '[.findings[].locations[] | select(.line != $l)] | length' "$t/u/r.json")" 0 \
	"call sites listed off line $line"
assert_eq "$(jq '[.findings[].locations[].address] | unique | length' "$t/u/r.json")" "$sites" \
	"distinct call sites the findings list"
assert_eq "$(jq '.kernels | length' "$t/u/r.json")" 1 "kernel places of the unrolled loop"
assert_eq "$(jq '[.kernels[].launches] | add' "$t/u/r.json")" 4 "kernel launches of the unrolled loop"

# The plan: the same patch, the region above the loop's pragma.
pu=$(jq -r '.plans[0].edit.patch // empty' "$t/u/r.json")
pr=$(jq -r '.plans[0].edit.patch // empty' "$t/r/r.json")
[ -n "$pu" ] || fail "no patch for the unrolled loop: $(jq -r '.plans[0].edit.text' "$t/u/r.json")"
assert_eq "$(sed 's/unroll(full)/unroll(disable)/' <<<"$pu")" "$pr" "the unrolled loop's patch (against the rolled loop's)"
grep -B1 -A2 '^+#pragma omp target data' <<<"$pu" | grep -q '^+{' || fail "the region does not open a block: $pu"
awk '/^\+#pragma omp target data/ { r = NR } /^ #pragma clang loop/ { l = NR } END { exit !(r && l && r < l) }' <<<"$pu" ||
	fail "the region does not go above the loop's pragma: $pu"

# diff: the rolled and the unrolled loop have the same findings.
"$m" diff -q --json "$t/d.json" "$t/r/r.db" "$t/u/r.db" 2>"$t/err" || fail "diff: $(cat "$t/err")"
assert_eq "$(jq '[.removed, .new] | map(length) | add' "$t/d.json")" 0 "findings removed or new between rolled and unrolled"

# --same-program: two recordings of the unrolled program, the same findings.
(cd "$t/u" && "$m" record -f -o r2.db -- ./prog >/dev/null 2>"$t/err") || fail "record (again): $(cat "$t/err")"
"$m" report -q --no-html --json "$t/s.json" --same-program "$t/u/r.db" "$t/u/r2.db" 2>"$t/err" ||
	fail "report --same-program: $(cat "$t/err")"
assert_eq "$(jq '.repeat.findings_not_in_first' "$t/s.json")" 0 "findings of the second recording not in the first"
assert_eq "$(jq '[.repeat.findings[] | select(.runs != 2)] | length' "$t/s.json")" 0 "findings not seen in both recordings"
assert_eq "$(jq '.findings | length' "$t/s.json")" "$(jq '.findings | length' "$t/u/r.json")" "findings with --same-program"
echo "ok: $sites call sites of one directive give the rolled loop's $(jq '.findings | length' "$t/r/r.json") findings, one kernel place, its patch"
