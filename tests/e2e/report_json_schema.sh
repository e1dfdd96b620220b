#!/usr/bin/env bash
# report.json of both shapes against docs/report-json.schema.json (issue #26
# item 4): one database (every sample, and with --baseline and
# --same-program) and several (the merged report over processes) validate
# with jsonschema's Draft 2020-12 validator; the schema itself is checked
# first.  Both shapes carry format "mapprof-report" and version 1.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
py=${PYTHON:-python3}
"$py" -c 'import jsonschema' 2>/dev/null ||
	skip "python3-jsonschema is missing (make test-deps)"
cd "$t"

for s in round_trip duplicate_transfer jacobi_like nowait_threads two_devices; do
	"$m" record -o "$s.db" -- "$MAPPROF_BUILD/samples/$s" >/dev/null 2>&1 || fail "record $s"
	"$m" report -q --no-html --json "$s.json" "$s.db" 2>/dev/null || fail "report $s"
done
"$m" record -o rt2.db -- "$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>&1 || fail "record round_trip again"
"$m" report -q --no-html --json baseline.json --baseline round_trip.db rt2.db 2>/dev/null || fail "report --baseline"
"$m" report -q --no-html --json same.json --same-program round_trip.db rt2.db 2>/dev/null || fail "report --same-program"
"$m" record --check -o checked.db -- "$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>&1 || fail "record --check"
"$m" report -q --no-html --json checked.json checked.db 2>/dev/null || fail "report on a run recorded with --check"
"$m" report -q --no-html --json merged.json round_trip.db duplicate_transfer.db jacobi_like.db 2>/dev/null ||
	fail "report over three databases"

"$py" - "$MAPPROF_SRC/docs/report-json.schema.json" ./*.json <<'PY' || fail "report.json does not validate (above)"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        print(f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    bad += bool(errors)
    shape = "merged" if "merged_findings" in doc else "single"
    if doc.get("format") != "mapprof-report" or doc.get("version") != 1:
        print(f"{path} ({shape}): format/version missing"); bad += 1
sys.exit(1 if bad else 0)
PY
# The schema tells the shapes apart: a merged document is not valid as a single one.
"$py" - "$MAPPROF_SRC/docs/report-json.schema.json" merged.json <<'PY' || fail "the schema accepts a merged document without its processes"
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
del doc["processes"]
sys.exit(0 if list(v.iter_errors(doc)) else 1)
PY
echo "ok: report.json validates in both shapes (5 samples, --baseline, --same-program, 3 databases merged)"
