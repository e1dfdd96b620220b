#!/usr/bin/env bash
# help_truths.sh - what --help, the messages and docs/database.md say is
# true (issue 26, item 15): one --source-root entry and --top in report's
# usage line; 'mapprof help report'; 'run -o results/app' makes results/;
# an unfinished database with its spool points at 'recover'; a bad --top is
# named; 'run' names the program's exit status, not the report's; diff's
# help on the matching key agrees with the code; the database.md queries
# run as printed (no stray fence, query 5 names devices, never the host or
# -1); the merged summary's times in the usual units; 'record -- mpirun'
# says "N processes", not "N more" of N.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >app.c <<'C'
#include <stdio.h>
#define N 4096
double a[N];
int main(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
	printf("%g\n", a[1]);
	return 0;
}
C
compile_offload app.c app -g

# report --help: --source-root once, --top in the usage line.
"$mapprof" report --help >help.txt || fail "report --help"
assert_eq "$(grep -c -- '--source-root DIR' help.txt)" 2 "report --help: --source-root (usage line + one entry)"
sed -n '1,/^$/p' help.txt | grep -q -- '--top N' || fail "report --help: --top missing from the usage line"
# 'mapprof help report' is report's help, not the general one.
"$mapprof" help report >help2.txt || fail "mapprof help report"
cmp -s help.txt help2.txt || fail "'mapprof help report' differs from 'mapprof report --help'"
"$mapprof" help nosuch >/dev/null 2>&1 && fail "'mapprof help nosuch' succeeded"

# run -o into a directory that does not exist yet.
"$mapprof" run -q -o results/app -- ./app >out 2>err || fail "run -o results/app: $(cat err)"
[ -f results/app.mapprof.db ] && [ -f results/report.json ] || fail "run -o results/app: no results/app.mapprof.db"
db=results/app.mapprof.db

# --top -1 names the option.
"$mapprof" report --top -1 "$db" 2>err && fail "--top -1 accepted"
grep -q -- "--top '-1'" err || fail "--top -1: the option is not named: $(cat err)"

# An unfinished database with its spool: recover, not "record again".
cp "$db" unf.db
q unf.db "UPDATE run_raw SET status = 'recording'" >/dev/null
: >unf.db-spool
"$mapprof" report unf.db 2>err && fail "unfinished database reported"
grep -q "hint:.*mapprof recover unf.db-spool" err || fail "unfinished database: no recover hint: $(cat err)"
grep -q "record the program again" err && fail "unfinished database with a spool: 'record again'"

# run's closing line names the status it exits with (the program's).
"$mapprof" run -q -o x3 -- sh -c 'exit 3' >out 2>err
assert_eq "$?" 3 "run -- sh -c 'exit 3': exit status"
grep -q "(exit status 4)" err && fail "run -- sh -c 'exit 3' says exit status 4: $(cat err)"
grep -q "(exit status 3)" err || fail "run -- sh -c 'exit 3': the closing line: $(cat err)"

# diff --help: the file name is no part of the key (as docs/usage.md and diff.c).
"$mapprof" diff --help | tr '\n' ' ' | grep -q "file name and the line are no part of the key" ||
	fail "diff --help: the matching key"
grep -q "the file name is not either" "$MAPPROF_SRC/docs/usage.md" || fail "docs/usage.md changed its matching text"

# docs/database.md: fences pair up (each opens with a language), every query runs.
"$PYTHON" - "$MAPPROF_SRC/docs/database.md" >queries.sql <<'PY' || fail "docs/database.md: fences"
import re, sys
text = open(sys.argv[1]).read()
inside, lang, out = False, None, []
for n, line in enumerate(text.splitlines(), 1):
    if line.startswith('```'):
        if not inside:
            if line == '```':
                sys.exit(f"line {n}: a fence opens with no language (a stray fence?)")
            inside, lang = True, line[3:]
        else:
            if line != '```':
                sys.exit(f"line {n}: a block ends with '{line}'")
            inside = False
        continue
    if inside and lang == 'sql':
        out.append(line)
if inside:
    sys.exit("a fence is never closed")
print('\n'.join(out))
PY
"$mapprof" report -q --no-json --no-html "$db" >/dev/null 2>&1 || fail "report"
sed -i "s/'0123456789abcdef'/'x'/" queries.sql
sqlite3 -batch "$db" <queries.sql >/dev/null 2>err || fail "docs/database.md queries: $(cat err)"
host=$(q "$db" "SELECT host_device FROM run")
q5=$(awk '/^-- 5\./,/^$/' queries.sql | grep -v "^--")
[ -n "$q5" ] || fail "docs/database.md: no query 5"
q "$db" "$q5" >q5.out
grep -Eq "^(-1|$host)\|" q5.out && fail "query 5 lists the host ($host) or -1 as a device: $(cat q5.out)"
grep -q "^0|delete|" q5.out || fail "query 5: no deletes on device 0: $(cat q5.out)"

# The merged summary's times in the usual units (two databases of one program).
"$mapprof" run -q -o again -- ./app >/dev/null 2>&1
"$mapprof" report --no-json --no-html "$db" again.mapprof.db >merged 2>&1 || fail "merged report: $(cat merged)"
grep -q "to save" merged || fail "merged summary: no savings: $(cat merged)"
grep -Eq "[0-9]\.[0-9]{3} ms to save" merged && fail "merged summary: times as x.xxx ms: $(grep 'to save' merged)"
grep -Eq "[0-9.]+ (ns|us|ms|s) to save" merged || fail "merged summary: times: $(grep 'to save' merged)"

# record -- mpirun: the ranks are all the processes, not "more".
if command -v mpirun >/dev/null && command -v mpicc >/dev/null; then
	OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
		-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
		fail "cannot build mpi_ranks"
	mkdir mpi && cd mpi
	timeout 120 "$mapprof" record -o run.db -- mpirun --oversubscribe --allow-run-as-root -n 2 ../mpi_ranks \
		>out 2>err || fail "record -- mpirun: $(cat err)"
	grep -q "did not offload itself" err || fail "record -- mpirun: mpirun offloaded? $(cat err)"
	grep -q "more process" err && fail "record -- mpirun: 'more': $(grep 'process' err)"
	grep -q "recorded 2 processes, one database each" err || fail "record -- mpirun: $(cat err)"
	cd ..
else
	echo "note: Open MPI is missing: 'record -- mpirun' not checked"
fi
echo "ok"
