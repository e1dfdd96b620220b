#!/usr/bin/env bash
# tests/checks/checks.sh - each program of tests/checks/*.c has one mapping
# bug ('// expect: KIND VARIABLE BYTES' says which, '// <- bug' marks the
# directive): recorded with 'mapprof run --check' it gives exactly one check
# finding, of that kind, at that line, naming that variable and byte count;
# built with -DFIXED (the same program, fixed) it gives none.  Also: the
# finding reaches the summary, the SARIF log (level error, its rule) and
# --fail-on check (exit 1), and without --check nothing of it is recorded.
. "$(dirname "$0")/../e2e/lib.sh"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter $dir"
M=$MAPPROF_BUILD/mapprof

# KIND VARIABLE BYTES LINE of check finding 1 of report.json $1, or "none" / "N findings".
first_check() {
	"$PYTHON" - "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])).get("checks")
if c is None:
    print("no checks"); sys.exit()
f = c["findings"]
if len(f) != 1:
    print("%d findings: %s" % (len(f), [x["message"] for x in f])); sys.exit()
f = f[0]
print(f["kind"], (f["variable"] or {}).get("name"), f["bytes"], f["location"].get("line"))
PY
}

n=0
for src in "$MAPPROF_SRC"/tests/checks/*.c; do
	name=$(basename "$src" .c)
	read -r kind var bytes < <(sed -n 's|^// expect: ||p' "$src")
	line=$(grep -n '// <- bug' "$src" | cut -d: -f1)
	[ -n "$kind" ] && [ -n "$line" ] || fail "$name.c: no '// expect:' or '// <- bug' line"
	compile_offload "$src" "$name" -O1 -g
	compile_offload "$src" "$name.fixed" -O1 -g -DFIXED
	rc=0
	"$M" run -f -q --check --no-html --json "$name.json" --sarif "$name.sarif" --fail-on check \
		-o "$name" -- "./$name" >/dev/null 2>"$name.err" || rc=$?
	[ "$rc" = 77 ] && { echo "note: $name: needs two devices"; continue; }
	assert_eq "$rc" 1 "$name: exit status of 'run --check --fail-on check' (stderr: $(cat "$name.err"))"
	grep -q -- "--fail-on check: 1 check occurrence" "$name.err" || fail "$name: --fail-on's message: $(cat "$name.err")"
	assert_eq "$(first_check "$name.json")" "$kind $var $bytes $line" "$name: the check finding"
	"$PYTHON" - "$name.sarif" "$kind" <<'PY' || fail "$name: SARIF result"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
res = [x for x in r["results"] if x["ruleId"].startswith("mapprof.check.")]
assert len(res) == 1, res
assert res[0]["level"] == "error"
assert r["tool"]["driver"]["rules"][res[0]["ruleIndex"]]["id"] == res[0]["ruleId"]
assert res[0]["ruleId"] == "mapprof.check." + sys.argv[2].replace("_", "-")
PY
	"$M" report --no-json --no-html "$name.mapprof.db" >"$name.txt" 2>&1 || fail "$name: report"
	head -n 2 "$name.txt" | grep -q "^  B1 $kind at .*$name.c:$line: 1 time" ||
		fail "$name: the summary does not lead with the finding: $(head -n 3 "$name.txt")"
	"$M" run -f -q --check --no-html --json "$name.fixed.json" --fail-on check -o "$name.fixed" \
		-- "./$name.fixed" >/dev/null 2>"$name.fixed.err" ||
		fail "$name fixed: 'run --check --fail-on check' failed: $(cat "$name.fixed.err")"
	"$PYTHON" -c 'import json,sys; c=json.load(open(sys.argv[1]))["checks"]; sys.exit(len(c["findings"]))' \
		"$name.fixed.json" || fail "$name fixed: check findings: $(sqlite3 "$name.fixed.mapprof.db" 'select * from check_raw')"
	# Without --check: no rows, no stat, no 'checks' in report.json.
	"$M" run -f -q --no-html --json "$name.off.json" -o "$name.off" -- "./$name" >/dev/null 2>&1 ||
		fail "$name: run without --check"
	assert_eq "$(q "$name.off.mapprof.db" "select count(*) from check_raw")" 0 "$name: rows without --check"
	"$PYTHON" -c 'import json,sys; sys.exit("checks" in json.load(open(sys.argv[1])))' "$name.off.json" ||
		fail "$name: report.json has 'checks' without --check"
	echo "ok $name: $kind at line $line"
	n=$((n + 1))
done
[ "$n" -ge 6 ] || fail "only $n programs checked"

# Device memory the host cannot write (as a GPU's; MAPPROF_DEVICE_MEMORY_HOST=0
# says so on host offload): never_written is skipped, with its reason, and
# finds nothing; lost_host_write, on host memory only, still finds its bug.
MAPPROF_DEVICE_MEMORY_HOST=0 "$M" run -f -q --check --no-html --json nw_dev.json -o nw_dev -- ./nw_global_whole \
	>/dev/null 2>&1 || fail "run --check with device memory the host cannot write"
"$PYTHON" - nw_dev.json <<'PY' || fail "never_written on device memory the host cannot write"
import json, sys
c = json.load(open(sys.argv[1]))["checks"]
assert c["findings"] == [], c["findings"]
assert len(c["skipped"]) == 1 and c["skipped"][0].startswith("device 0: never_written: the device's memory is not host memory"), c["skipped"]
PY
"$M" report --no-json --no-html nw_dev.mapprof.db 2>&1 | grep -q "^  not checked on device 0: never_written: " ||
	fail "the summary does not say never_written was not checked"
MAPPROF_DEVICE_MEMORY_HOST=0 "$M" run -f -q --check --no-html --json lw_dev.json -o lw_dev -- ./lw_global_exit \
	>/dev/null 2>&1 || fail "run --check (lost_host_write) with device memory the host cannot write"
assert_eq "$(first_check lw_dev.json)" "lost_host_write a 4 $(grep -n '// <- bug' "$MAPPROF_SRC/tests/checks/lw_global_exit.c" | cut -d: -f1)" \
	"lost_host_write on device memory the host cannot write"
# Their report.json, findings and all, against the schema (docs/report-json.schema.json).
if "$PYTHON" -c 'import jsonschema' 2>/dev/null; then
	"$PYTHON" - "$MAPPROF_SRC/docs/report-json.schema.json" ./*.json <<'PY' || fail "a report.json does not validate"
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = 0
for p in sys.argv[2:]:
    for e in list(v.iter_errors(json.load(open(p))))[:3]:
        print(p, "/".join(map(str, e.absolute_path)), e.message[:200]); bad = 1
sys.exit(bad)
PY
else
	echo "note: python3-jsonschema is missing: the reports were not validated"
fi

# --fail-on check counts occurrences only, and tolerates N of them.
rc=0; "$M" report -q --no-json --no-html --fail-on check:5% nw_global_whole.mapprof.db >/dev/null 2>&1 || rc=$?
assert_eq "$rc" 2 "--fail-on check:5% (a saving for a check)"
"$M" report -q --no-json --no-html --fail-on check:1 nw_global_whole.mapprof.db >/dev/null 2>&1 ||
	fail "--fail-on check:1 tripped on one occurrence"
