#!/usr/bin/env bash
# report_kernels.sh - the kernels table (issue 26, item 7): where the kernel
# time went, in the terminal summary and report.json (and the page, in the
# browser test), on real recordings whose headers state their kernels:
#
# - samples/round_trip: 4 launches at line 35 (each construct maps a,
#   2048 B, to and from the device) and 1 at line 43 (b, the same);
# - samples/jacobi_like: 4 sweeps at line 50 (f and u in, 32768 B each; f
#   and unew out) and 4 residuals at line 65 (u, f and err (8 B) in; u and
#   err out);
# - every launch and nanosecond the database holds is in exactly one row;
#   the document validates against docs/report-json.schema.json;
# - --top 1 shows one row and says how many more there are.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is not installed"
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# report SAMPLE: record and report it; the summary in SAMPLE.out, the JSON in SAMPLE.json.
report() {
	local prog=$MAPPROF_BUILD/samples/$1
	[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
	timeout 60 "$mapprof" record -o "$1.db" -- "$prog" >/dev/null 2>err || fail "$1: record failed: $(cat err)"
	"$mapprof" report --no-html --json "$1.json" "$1.db" >"$1.out" 2>err || fail "$1: report failed: $(cat err)"
}
# rows SAMPLE: the JSON's kernels as "file:line device launches to from transfers".
rows() {
	jq -r '.kernels[] | "\(.location.file | sub(".*/"; "")):\(.location.line) \(.device) \(.launches) \(.bytes_to_device) \(.bytes_from_device) \(.transfers)"' \
		"$1.json" | sort
}
# consistent SAMPLE: the rows hold every kernel of the database once, and mean = total / launches.
consistent() {
	assert_eq "$(jq '[.kernels[].launches] | add' "$1.json")" "$(q "$1.db" 'SELECT COUNT(*) FROM kernels')" "$1: launches"
	assert_eq "$(jq '[.kernels[].total_ns] | add' "$1.json")" \
		"$(q "$1.db" 'SELECT SUM(end_ns - begin_ns) FROM kernels')" "$1: kernel time"
	assert_eq "$(jq '[.kernels[] | select(.mean_ns != ((.total_ns / .launches) | floor))] | length' "$1.json")" 0 \
		"$1: mean_ns"
	# Most time first.
	assert_eq "$(jq '[.kernels[].total_ns] | . == (sort | reverse)' "$1.json")" true "$1: order"
}

report round_trip
assert_eq "$(rows round_trip)" "round_trip.c:35 0 4 8192 8192 8
round_trip.c:43 0 1 2048 2048 2" "round_trip: kernels"
consistent round_trip
grep -q '^kernels: 5 launches at 2 places, most time first:$' round_trip.out ||
	fail "round_trip: no kernels table in the summary: $(cat round_trip.out)"
grep -Eq '^ +4 +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +8\.00 KiB +8\.00 KiB +round_trip\.c:35, device 0$' round_trip.out ||
	fail "round_trip: no row for line 35: $(cat round_trip.out)"
grep -Eq '^ +1 +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +2\.00 KiB +2\.00 KiB +round_trip\.c:43, device 0$' round_trip.out ||
	fail "round_trip: no row for line 43: $(cat round_trip.out)"

report jacobi_like
assert_eq "$(rows jacobi_like)" "jacobi_like.c:50 0 4 262144 262144 16
jacobi_like.c:65 0 4 262176 131104 20" "jacobi_like: kernels"
consistent jacobi_like
"$mapprof" report --top 1 --no-html --no-json jacobi_like.db >top.out 2>err || fail "report --top 1: $(cat err)"
assert_eq "$(sed -n '/^kernels:/,/^  (to\/from/p' top.out | grep -c ', device 0$')" 1 "--top 1: kernel rows"
grep -q '^  \.\.\. and 1 more (see report.json or the page.s kernels table)$' top.out ||
	fail "--top 1: no '... and 1 more': $(cat top.out)"

# The schema knows the table.
if "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	for s in round_trip jacobi_like; do
		"$PYTHON" - "$MAPPROF_SRC/docs/report-json.schema.json" "$s.json" <<'PY' || fail "$s.json does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
props = schema["$defs"]["single"]["properties"] if "single" in schema.get("$defs", {}) else schema["properties"]
assert "kernels" in props, "the schema has no 'kernels'"
jsonschema.validate(doc, schema)
PY
	done
else
	echo "note: python3-jsonschema is missing: the schema was not checked"
fi
exit 0
