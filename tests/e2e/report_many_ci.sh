#!/usr/bin/env bash
# CI over several databases (issue #26 items 3 and 6): --sarif and --fail-on
# work when 'mapprof report' is given one database per process, as an MPI
# job's CI step does.  Each --fail-on judges every process alone and names
# the one over it; the SARIF log merges the findings by fingerprint and each
# result names its processes.  And a '-' output owns standard output: the
# summary goes to stderr for --sarif - as for --json -, one database or several.
. "$(dirname "$0")/lib.sh"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
cd "$t"

"$m" record -o run.0.db -- "$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>&1 || fail "record round_trip"
"$m" record -o run.1.db -- "$MAPPROF_BUILD/samples/well_mapped" >/dev/null 2>&1 || fail "record well_mapped"
"$m" record -o run.2.db -- "$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>&1 || fail "record round_trip again"

set +e
"$m" report -q --sarif m.sarif --fail-on any run.0.db run.1.db run.2.db >out 2>err
rc=$?
set -e
assert_eq "$rc" 1 "exit status of --fail-on any over three databases, two with findings"
[ -s m.sarif ] || fail "no SARIF log written over several databases: $(cat err)"
assert_eq "$(grep -c -- '--fail-on any:' err)" 2 "--fail-on lines (one per process over it)"
grep -q "'run.0.db')" err && grep -q "'run.2.db')" err || fail "the tripped processes are not named: $(cat err)"
grep -q "run.1.db" err && fail "the clean process was named as over the threshold: $(cat err)"
jq -e '.version == "2.1.0" and (.runs | length == 1)' m.sarif >/dev/null || fail "not a SARIF 2.1.0 log"
n=$(jq '.runs[0].results | length' m.sarif)
[ "$n" -ge 2 ] || fail "expected the round trip sample's findings in the merged log, got $n results"
# Merged by fingerprint: each result once, found in both round_trip processes.
assert_eq "$(jq '[.runs[0].results[].partialFingerprints[]] | (length == (unique | length))' m.sarif)" true \
	"one result per fingerprint"
assert_eq "$(jq '[.runs[0].results[] | .properties.processes | length] | unique' -c m.sarif)" "[2]" \
	"each result names the two processes it was found in"
jq -e '.runs[0].results[0].message.text | test("2 of 3 processes")' m.sarif >/dev/null ||
	fail "the message does not say where: $(jq '.runs[0].results[0].message.text' m.sarif)"

set +e
"$m" report -q --fail-on savings:99% run.0.db run.1.db run.2.db >/dev/null 2>err
rc=$?
set -e
assert_eq "$rc" 0 "exit status under a threshold no process reaches"

# '-' outputs: stdout is the document alone, the summary is on stderr.
for dbs in "run.0.db" "run.0.db run.1.db run.2.db"; do
	# shellcheck disable=SC2086
	"$m" report --no-json --no-html --sarif - $dbs >out 2>err || fail "report --sarif - $dbs: $(cat err)"
	jq -e '.version == "2.1.0"' out >/dev/null || fail "--sarif - ($dbs): stdout is not the SARIF log alone: $(head -3 out)"
	grep -q "round_trip" err || fail "--sarif - ($dbs): no summary on stderr"
done
echo "ok: --sarif and --fail-on over several databases; '-' outputs keep stdout to themselves"
