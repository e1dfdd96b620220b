#!/usr/bin/env bash
# output_sigpipe.sh - a closed standard output never costs a file (issue 23,
# item 8).  'mapprof run -- ./app | head -3' and 'mapprof report DB | true'
# were killed by SIGPIPE (status 141) in the middle of the summary: no
# report.json, no report.html, and the database's write transaction left as
# a hot journal.  Now mapprof catches SIGPIPE, takes EPIPE on standard output
# as "stop printing the summary", writes every file and stores the findings.
# The profiled program still gets SIGPIPE's default (or the ignored
# disposition mapprof itself was given), as it would without mapprof.
#
# Standard output is made a pipe whose reading end is already closed (a
# Python wrapper), so that the first write fails for certain: a real
# '| head' only fails when the summary outgrows the pipe's first read.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v "$PYTHON" >/dev/null || skip "no $PYTHON"
command -v jq >/dev/null || skip "jq is not installed"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# closed_stdout CMD...: run CMD with standard output a pipe nobody reads
# (its reading end closed) and SIGPIPE at its default, as a shell gives it;
# print its exit status (128+N when killed by signal N).
closed_stdout() {
	"$PYTHON" -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.call(sys.argv[1:], stdout=w, stderr=open("err", "w"), timeout=120)
print(128 - rc if rc < 0 else rc)' "$@"
}

# finished DIR DB WHAT: the reports beside DB are there and whole, the
# findings stored, no journal left.
finished() {
	jq -e '.format == "mapprof-report" or .merged_findings' "$1/report.json" >/dev/null 2>&1 ||
		fail "$3: no whole report.json: $(cat err)"
	grep -q '</html>' "$1/report.html" 2>/dev/null || fail "$3: no whole report.html: $(cat err)"
	[ ! -e "$2-journal" ] || fail "$3: a hot journal was left: $(ls -l "$2-journal")"
	[ "$(q "$2" 'SELECT COUNT(*) FROM findings')" -gt 0 ] || fail "$3: no findings stored in $2"
	grep -q "wrote '.*report.json'" err || fail "$3: did not say it wrote report.json: $(cat err)"
}

# A program that prints nothing on stdout: the closed pipe is mapprof's alone.
cat >quiet.c <<'C'
#include <stdio.h>
int main(void)
{
	static double a[4096];
	for (int r = 0; r < 4; r++) {
#pragma omp target teams distribute parallel for map(tofrom: a)
		for (int i = 0; i < 4096; i++)
			a[i] += i;
	}
	fprintf(stderr, "quiet: %g\n", a[7]);
	return 0;
}
C
compile_offload quiet.c quiet -g -O1

# --- run: record and report with nobody reading the summary -------------------
mkdir r
rc=$(closed_stdout "$mapprof" run -o r/quiet -- ./quiet)
assert_eq "$rc" 0 "run with a closed standard output: $(cat err)"
finished r r/quiet.mapprof.db "run with a closed standard output"
assert_eq "$(q r/quiet.mapprof.db 'SELECT status FROM run')" complete "run's recording"

# --- report ---------------------------------------------------------------------
"$mapprof" record -o rep.db -- "$sample" >/dev/null 2>&1 || fail "cannot record $sample"
rc=$(closed_stdout "$mapprof" report rep.db)
assert_eq "$rc" 0 "report with a closed standard output: $(cat err)"
finished . rep.db "report with a closed standard output"
# The reader going away is no error: nothing about it on stderr.
! grep -q 'error' err || fail "report with a closed standard output said: $(cat err)"

# Several databases (the merged summary).
rm -f report.json report.html
cp rep.db rep2.db
rc=$(closed_stdout "$mapprof" report rep.db rep2.db)
assert_eq "$rc" 0 "report DB DB with a closed standard output: $(cat err)"
finished . rep2.db "report DB DB with a closed standard output"

# diff: the comparison is its output; a reader gone is still no error.
rc=$(closed_stdout "$mapprof" diff --json d.json rep.db rep2.db)
assert_eq "$rc" 0 "diff with a closed standard output: $(cat err)"
jq -e .removed d.json >/dev/null || fail "diff with a closed standard output: no d.json"

# A real pipe, as a user types it.
rm -f report.json report.html
"$mapprof" report rep.db 2>err | true
assert_eq "${PIPESTATUS[0]}" 0 "report DB | true"
finished . rep.db "report DB | true"

# --- the program's own SIGPIPE is left as it was given ----------------------------
# SIGPIPE is signal 13: bit 0x1000 of /proc/PID/status's SigIgn mask.
sigign() {
	local mask
	mask=$(awk '/^SigIgn:/ { print $2 }' "$1")
	[ -n "$mask" ] || fail "no SigIgn line in $1"
	if (((16#$mask & 0x1000) != 0)); then echo ignored; else echo default; fi
}
"$mapprof" record -o s1.db -- sh -c 'cat /proc/$$/status >status1' >/dev/null 2>&1
assert_eq "$(sigign status1)" default "SIGPIPE in a program mapprof runs"
(trap '' PIPE && "$mapprof" record -o s2.db -- sh -c 'cat /proc/$$/status >status2' >/dev/null 2>&1)
assert_eq "$(sigign status2)" ignored "SIGPIPE in a program mapprof runs with SIGPIPE ignored"
exit 0
