#!/usr/bin/env bash
# record_sources.sh - 'mapprof record' stores the size and hash of every
# source file a report would quote (source_file_raw): each location's file
# and each mapped variable's declaration file.  The keys that find them (code
# pointer, map entry, host address of every data operation) are gathered as
# the spool is expanded, not read back from data_op_raw (issue 29: that
# second pass was a fifth of record's time after a 1.8 M-event program).
# A program in two files whose mapped array is declared in a header: the
# three files, with their sizes, and nothing else.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >common.h <<'C'
#define N 4096
extern double grid[N];
void step(int k);
C
cat >main.c <<'C'
#include <stdio.h>
#include "common.h"
double grid[N];
int main(void)
{
#pragma omp target enter data map(alloc: grid[0:N])
	for (int k = 0; k < 4; k++)
		step(k);
#pragma omp target exit data map(delete: grid[0:N])
	printf("%g\n", grid[7]);
	return 0;
}
C
cat >step.c <<'C'
#include "common.h"
static double scratch[N];
void step(int k)
{
#pragma omp target map(tofrom: grid[0:N]) map(to: scratch[0:N])
	for (int i = 0; i < N; i++)
		grid[i] += scratch[i] + k;
}
C
ompcc -g -O1 main.c step.c -o prog || fail "cannot build the program"
"$mapprof" record -o run.db -- ./prog >/dev/null 2>rec.err || { cat rec.err >&2; fail "record failed"; }
got=$(q run.db "SELECT replace(path, '/./', '/') || ' ' || bytes FROM source_file_raw ORDER BY path" | sed "s|^$d/||")
want=$(for f in common.h main.c step.c; do echo "$f $(stat -c %s $f)"; done)
assert_eq "$got" "$want" "the source files record hashed (path relative to the test's directory, size)"
echo "ok: record hashed the program's two files and the header declaring its mapped array"
