#!/usr/bin/env bash
# plans_no_debug.sh - a program built without -g: the report has no source
# line for its directives, so every plan says that source-level plans need
# -g and how to rebuild, and none names an address as a variable or a
# "line 0" as the place to edit.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
ompcc -O1 "$MAPPROF_SRC/samples/round_trip.c" -o "$t/app" || fail "cannot build round_trip.c"
(cd "$t" && "$m" run -- ./app) >"$t/out" 2>"$t/err" || fail "mapprof run: $(cat "$t/err")"
n=$(jq '.plans | length' "$t/report.json")
[ "$n" -ge 1 ] || fail "no plans for round_trip.c built without -g"
assert_eq "$(jq '[.plans[] | select(.edit.text | startswith("Source-level plans need -g: rebuild with -g"))] | length' "$t/report.json")" \
	"$n" "plans that say they need -g"
grep -q "line 0" "$t/out" "$t/report.json" && fail "a plan names line 0: $(grep -h "line 0" "$t/out" "$t/report.json" | head -n 2)"
grep -q "suggested: Source-level plans need -g" "$t/out" || fail "the summary's plans do not say they need -g: $(cat "$t/out")"
echo "ok: without -g every plan says that source-level plans need -g"
