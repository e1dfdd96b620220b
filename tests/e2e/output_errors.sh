#!/usr/bin/env bash
# output_errors.sh - every write error is reported truly, and the exit
# status and the messages say what was written (issue 23, item 13).
#
# Before: 'report --html DIR' exited 3 after writing report.json (the docs
# said exit 3 wrote nothing); 'trace -o /dev/full' said "No such file or
# directory"; 'diff a b > /dev/full' exited 0.  Now:
# - an output that is a directory, or in no directory, is refused before any
#   work (exit 2, nothing written);
# - an output that fails while written is said with the first write's own
#   errno ("No space left on device"); the other outputs are still written,
#   each said with "wrote", the findings still stored; exit 3;
# - standard output that cannot take the summary, the comparison or --help is
#   an error (exit 3), a reader that went away is not (output_sigpipe.sh).
#
# /dev/full is the full disk (every write fails with ENOSPC).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"
[ -c /dev/full ] || skip "no /dev/full"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# run_rc CMD...: CMD's exit status; its stdout in 'out', stderr in 'err'.
run_rc() {
	local rc=0
	timeout 120 "$@" >out 2>err || rc=$?
	echo "$rc"
}

"$mapprof" record -o run.db -- "$sample" >/dev/null 2>err || fail "cannot record: $(cat err)"

# --- an output that cannot be a file: refused before anything is written -----------
mkdir d && cp run.db d/run.db && mkdir d/pages
rc=$(run_rc "$mapprof" report --html d/pages d/run.db)
assert_eq "$rc" 2 "report --html DIR"
grep -q "error: --html 'd/pages' is a directory" err || fail "report --html DIR said: $(cat err)"
[ ! -e d/report.json ] || fail "report --html DIR wrote report.json"
rc=$(run_rc "$mapprof" report --json nowhere/r.json d/run.db)
assert_eq "$rc" 2 "report --json NO-DIR/FILE"
grep -q "no directory 'nowhere'" err || fail "report --json NO-DIR/FILE said: $(cat err)"
[ ! -e d/report.html ] || fail "report --json NO-DIR/FILE wrote report.html"
# run refuses it before the program runs.
rc=$(run_rc "$mapprof" run -o d/x --html d/pages -- "$sample")
assert_eq "$rc" 2 "run --html DIR"
[ ! -e d/x.mapprof.db ] || fail "run --html DIR recorded the program"

# --- the HTML on a full disk: the JSON is still written, and said ---------------------
rc=$(run_rc "$mapprof" report -q --html /dev/full d/run.db)
assert_eq "$rc" 3 "report --html FULL"
grep -q "wrote 'd/report.json'" err || fail "report --html FULL did not say report.json was written: $(cat err)"
grep -q "error: cannot write '/dev/full': No space left on device" err ||
	fail "report --html FULL did not say why the HTML was not written: $(cat err)"
jq -e '.format == "mapprof-report"' d/report.json >/dev/null || fail "report --html FULL: no report.json"
# The findings were stored all the same, the transaction ended.
[ "$(q d/run.db 'SELECT COUNT(*) FROM findings')" -gt 0 ] || fail "report --html FULL stored no findings"
[ ! -e d/run.db-journal ] || fail "report --html FULL left a journal"
# The JSON on a full disk: the HTML is still written.
rm -f d/report.html
rc=$(run_rc "$mapprof" report -q --json /dev/full d/run.db)
assert_eq "$rc" 3 "report --json FULL"
grep -q "wrote 'd/report.html'" err || fail "report --json FULL did not write the HTML: $(cat err)"
grep -q "error: cannot write '/dev/full': No space left on device" err || fail "report --json FULL said: $(cat err)"
grep -q '</html>' d/report.html || fail "report --json FULL: no report.html"
# A --fail-on threshold crossed does not hide an output that was not written.
rc=$(run_rc "$mapprof" report -q --json /dev/full --fail-on any d/run.db)
assert_eq "$rc" 3 "report --json FULL --fail-on any"

# --- the summary on a full standard output ----------------------------------------------
rm -f d/report.json d/report.html
rc=0
"$mapprof" report d/run.db >/dev/full 2>err || rc=$?
assert_eq "$rc" 3 "report > FULL"
grep -q "error: cannot write the summary to standard output: No space left on device" err ||
	fail "report > FULL said: $(cat err)"
grep -q "wrote 'd/report.json'" err && [ -s d/report.json ] && [ -s d/report.html ] ||
	fail "report > FULL did not write the reports: $(cat err)"
rc=0
"$mapprof" report d/run.db d/run.db >/dev/full 2>err || rc=$?
assert_eq "$rc" 3 "report DB DB > FULL"

# --- trace --------------------------------------------------------------------------------
rc=$(run_rc "$mapprof" trace -o /dev/full run.db)
assert_eq "$rc" 3 "trace -o FULL"
grep -q "error: cannot write '/dev/full': No space left on device" err || fail "trace -o FULL said: $(cat err)"
rc=0
"$mapprof" trace -o - run.db >/dev/full 2>err || rc=$?
assert_eq "$rc" 3 "trace -o - > FULL"
grep -q "error: cannot write the trace to standard output: No space left on device" err ||
	fail "trace -o - > FULL said: $(cat err)"

# --- diff ---------------------------------------------------------------------------------
cp run.db after.db
rc=0
"$mapprof" diff run.db after.db >/dev/full 2>err || rc=$?
assert_eq "$rc" 3 "diff > FULL"
grep -q "No space left on device" err || fail "diff > FULL said: $(cat err)"
rc=$(run_rc "$mapprof" diff -q --json /dev/full run.db after.db)
assert_eq "$rc" 3 "diff --json FULL"
grep -q "error: cannot write '/dev/full': No space left on device" err || fail "diff --json FULL said: $(cat err)"

# --- --help and --version -------------------------------------------------------------------
for args in --help --version "report --help"; do
	rc=0
	# shellcheck disable=SC2086
	"$mapprof" $args >/dev/full 2>err || rc=$?
	assert_eq "$rc" 3 "mapprof $args > FULL"
	grep -q "No space left on device" err || fail "mapprof $args > FULL said: $(cat err)"
done
exit 0
