#!/usr/bin/env bash
# report_usm.sh - a run whose map clauses move nothing (issue 26, item 14):
# with '#pragma omp requires unified_shared_memory' the host plugin runs the
# kernels on host memory in place, no transfer, no allocation.  The summary
# says that (mapping findings do not apply), not "no inefficient data
# mapping found"; a program whose mapping is good still gets that line.
# report.json says it too (summary.nothing_mapped, the terminal's sentence);
# the page shows it where the findings would be (tests/browser).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >usm.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#pragma omp requires unified_shared_memory
#define N 65536
int main(void)
{
	double *a = calloc(N, sizeof(double));
	for (int it = 0; it < 3; it++) {
#pragma omp target map(tofrom: a[0:N])
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
	printf("%g\n", a[1]);
	return 0;
}
C
compile_offload usm.c usm -g
"$mapprof" run -o usm --no-html --no-json -- ./usm >out 2>err || fail "run usm: $(cat err)"
assert_eq "$(head -1 out)" 3 "usm: its output"
assert_eq "$(q usm.mapprof.db "SELECT COUNT(*) FROM data_ops WHERE bytes > 0") $(q usm.mapprof.db "SELECT COUNT(*) FROM kernels")" \
	"0 3" "usm: data operations and kernels recorded (the runtime moved nothing?)"
grep -q "no inefficient data mapping found" out && fail "usm: 'no inefficient data mapping found': $(tail -2 out)"
tr '\n' ' ' <out | grep -q "no data was mapped: 3 kernels ran, but the map clauses copied and allocated nothing" ||
	fail "usm: the summary does not say nothing was mapped: $(tail -3 out)"
grep -q "data mapping findings do not apply" out || fail "usm: why: $(tail -3 out)"
"$mapprof" report -q --json usm.json --no-html usm.mapprof.db >/dev/null 2>&1 || fail "report --json usm"
note=$(jq -r '.summary.nothing_mapped // "absent"' usm.json)
case $note in
"No data was mapped: 3 kernels ran, but the map clauses copied and allocated nothing"*"data mapping findings do not apply to this run.") ;;
*) fail "usm: report.json's summary.nothing_mapped: $note" ;;
esac
# The schema knows the field (when jsonschema is here: report_json_schema.sh says if not).
py=${PYTHON:-python3}
if "$py" -c 'import jsonschema' 2>/dev/null; then
	"$py" - "$MAPPROF_SRC/docs/report-json.schema.json" usm.json <<'PY' || fail "usm: report.json does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
errors = list(jsonschema.Draft202012Validator(schema).iter_errors(doc))
for e in errors[:5]:
    print(list(e.absolute_path), e.message, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
fi
# The terminal's sentence, the same words.
tr '\n' ' ' <out | grep -qF "${note#No}" || fail "usm: the terminal and report.json say it differently: $note"

# Well mapped, with transfers: the usual line.
compile_offload "$MAPPROF_SRC/samples/well_mapped.c" well -g
"$mapprof" run -o well --no-html --no-json -- ./well >out 2>err || fail "run well: $(cat err)"
grep -q "no inefficient data mapping found" out || fail "well_mapped: $(tail -3 out)"
grep -q "no data was mapped" out && fail "well_mapped: said nothing was mapped"
"$mapprof" report -q --json well.json --no-html well.mapprof.db >/dev/null 2>&1 || fail "report --json well"
assert_eq "$(jq '.summary | has("nothing_mapped")' well.json)" false "well_mapped: summary.nothing_mapped"
echo ok
