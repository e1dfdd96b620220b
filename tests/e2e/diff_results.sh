#!/usr/bin/env bash
# diff_results.sh - the results check of 'mapprof diff' and 'report
# --baseline' (report/compare/outcome.h): a program recorded twice gives
# "results: identical"; a variant whose output array differs names that
# array and the line of its last return; a variant that exits 1 says
# "exit status 0 -> 1"; a fix that turns map(tofrom:) of an array the
# kernel only reads into map(to:) keeps the results; a program from which
# nothing comes back cannot be compared.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
dir=$(tmpdir)
cd "$dir"

cat >prog.c <<'C'
#include <stdio.h>
#define N 4096
static double in[N], out[N];
int main(void)
{
	double sum = 0;
	for (int i = 0; i < N; i++)
		in[i] = i;
	for (int k = 0; k < 3; k++) {
#ifdef TO_ONLY
#pragma omp target map(to: in) map(from: out)
#else
#pragma omp target map(tofrom: in) map(from: out)
#endif
		for (int i = 0; i < N; i++)
#ifdef WRONG
			out[i] = 2 * in[i] + k + (i == 7);
#else
			out[i] = 2 * in[i] + k;
#endif
	}
#pragma omp target map(to: out) map(tofrom: sum)
	for (int i = 0; i < N; i++)
		sum += out[i] > 100 ? 1 : 0;
	printf("sum %g\n", sum);
#ifdef FAIL
	return 1;
#else
	return 0;
#endif
}
C
cat >none.c <<'C'
#define N 1024
static double in[N];
int main(void)
{
#pragma omp target map(to: in)
	for (int i = 0; i < N; i++)
		in[i] += 1;
	return 0;
}
C
ompcc -g -O1 prog.c -o prog || fail "cannot build prog"
ompcc -g -O1 -DWRONG prog.c -o wrong || fail "cannot build wrong"
ompcc -g -O1 -DFAIL prog.c -o failing || fail "cannot build failing"
ompcc -g -O1 -DTO_ONLY prog.c -o to_only || fail "cannot build to_only"
ompcc -g -O1 none.c -o none || fail "cannot build none"
for p in prog wrong failing to_only none; do
	rc=0
	"$mapprof" record -o "$p.db" -- "./$p" >/dev/null 2>rec.err || rc=$?
	[ "$p" = failing ] && [ $rc -eq 1 ] && continue
	[ $rc -eq 0 ] || fail "record $p: $(cat rec.err)"
done
"$mapprof" record -o prog2.db -- ./prog >/dev/null 2>rec.err || fail "record prog again: $(cat rec.err)"

# results_line OUT: the line of the summary that starts "results:"
results_line() { grep '^results:' "$1" || fail "no 'results:' line in: $(cat "$1")"; }

"$mapprof" diff --json same.json prog.db prog2.db >same.out 2>err.out || fail "diff: $(cat err.out)"
assert_eq "$(results_line same.out)" \
	"results: identical (3 variables' final contents match, exit status 0 both)" "same program"
assert_eq "$(jq -r '.results.status' same.json)" identical "json status"
assert_eq "$(jq -r '.results.compared' same.json)" 3 "json compared"
echo "ok the same program twice: results identical"

"$mapprof" diff --json wrong.json prog.db wrong.db >wrong.out 2>err.out || fail "diff: $(cat err.out)"
line=$(results_line wrong.out)
case $line in
"results: DIFFER: 'out"*"prog.c:"*"final content differs"*) ;;
*) fail "the variant's changed array is not named: $line" ;;
esac
assert_eq "$(jq -r '.results.status' wrong.json)" differ "json status of the variant"
assert_eq "$(jq -r '[.results.differences[] | .variable + ":" + .what] | join(",")' wrong.json)" \
	"out:content" "json differences"
want_line=$(grep -n '^#pragma omp target map(tofrom: in) map(from: out)' prog.c | cut -d: -f1)
assert_eq "$(jq -r '.results.differences[0].line' wrong.json)" "$want_line" "line of the last return"
echo "ok a variant whose output differs: '$line'"

"$mapprof" diff --json fail.json prog.db failing.db >fail.out 2>err.out || fail "diff: $(cat err.out)"
assert_eq "$(results_line fail.out)" "results: DIFFER: exit status 0 -> 1" "exit status"
assert_eq "$(jq -c '.results.exit_status | [.before, .after]' fail.json)" "[0,1]" "json exit status"
echo "ok an exit status that changed"

"$mapprof" diff --json to.json prog.db to_only.db >to.out 2>err.out || fail "diff: $(cat err.out)"
assert_eq "$(results_line to.out)" \
	"results: identical (3 variables' final contents match, exit status 0 both)" "tofrom -> to"
echo "ok map(tofrom:) -> map(to:) of an array the kernel only reads: identical"

"$mapprof" diff none.db none.db >none.out 2>err.out || fail "diff: $(cat err.out)"
case $(results_line none.out) in
"results: not comparable: no data came back"*) ;;
*) fail "nothing returned: $(results_line none.out)" ;;
esac
echo "ok nothing comes back: not comparable"

"$mapprof" report --baseline prog.db --json rep.json -q wrong.db >/dev/null 2>err.out ||
	fail "report --baseline: $(cat err.out)"
assert_eq "$(jq -r '.baseline.results.status' rep.json)" differ "report --baseline's results"
case $(jq -r '.baseline.results.summary' rep.json) in
"results: DIFFER: 'out"*) ;;
*) fail "report --baseline summary: $(jq -r '.baseline.results.summary' rep.json)" ;;
esac
"$mapprof" report --baseline prog.db wrong.db >rep.out 2>err.out || fail "report --baseline: $(cat err.out)"
grep -q "^results: DIFFER: 'out'" rep.out || fail "report --baseline's summary has no results line: $(cat rep.out)"
"$mapprof" report --baseline prog.db --html rep.html wrong.db >/dev/null 2>err.out || fail "html: $(cat err.out)"
grep -q 'id="baseline-results"' rep.html || fail "report.html has no results line"
echo "ok report --baseline carries the results check (JSON, terminal, page)"

# Two results that swap places (the same function fills A and B; the change
# swaps what each gets): the same name and the same two contents, so pairing
# by content says identical; by place among the name's ranges it differs
# (found by review).
cat >swap.c <<'C'
#include <stdio.h>
#define N 1024
static double A[N], B[N];
static void run(double *p, double v)
{
#pragma omp target teams distribute parallel for map(tofrom: p[0:N])
	for (int i = 0; i < N; i++)
		p[i] = v + i;
}
int main(void)
{
#ifndef SWAP
	run(A, 1.0);
	run(B, 2.0);
#else
	run(A, 2.0);
	run(B, 1.0);
#endif
	printf("A[0]=%g B[0]=%g\n", A[0], B[0]);
	return 0;
}
C
ompcc -O1 -g swap.c -o swap1 && ompcc -O1 -g -DSWAP swap.c -o swap2 || fail "cannot build swap.c"
"$mapprof" record -f -o swap1.db -- ./swap1 >/dev/null 2>&1 || fail "record swap1"
"$mapprof" record -f -o swap2.db -- ./swap2 >/dev/null 2>&1 || fail "record swap2"
"$mapprof" record -f -o swap1b.db -- ./swap1 >/dev/null 2>&1 || fail "record swap1 again"
grep -q "^results: DIFFER" <("$mapprof" diff swap1.db swap2.db 2>/dev/null) ||
	fail "swapped results: $("$mapprof" diff swap1.db swap2.db 2>&1 | grep results:)"
grep -q "^results: identical" <("$mapprof" diff swap1.db swap1b.db 2>/dev/null) ||
	fail "the same program twice: $("$mapprof" diff swap1.db swap1b.db 2>&1 | grep results:)"
echo "ok results that swap places differ"

# A change that drops a result the host read: a 'target update from' of
# part of an array, printed mid-run.  The final contents still match, but
# the recording cannot tell whether the host read the dropped one: the line
# does not say "identical" alone (JSON status "partial", the variable named).
cat >peek.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#define N 4096
#define K 64
int main(void)
{
	double *a = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma omp target enter data map(to: a[0:N])
	for (int it = 0; it < 10; it++) {
#pragma omp target
		for (int i = 0; i < N; i++)
			a[i] += 1;
#ifdef PEEK
		if (it == 4) {
#pragma omp target update from(a[0:K])
			printf("peek %g\n", a[K - 1]);
		}
#endif
	}
#pragma omp target exit data map(from: a[0:N])
	double s = 0;
	for (int i = 0; i < N; i++)
		s += a[i];
	printf("%g\n", s);
	free(a);
	return 0;
}
C
ompcc -O1 -g -DPEEK peek.c -o peek && ompcc -O1 -g peek.c -o nopeek || fail "cannot build peek.c"
"$mapprof" record -f -o peek.db -- ./peek >/dev/null 2>&1 || fail "record peek"
"$mapprof" record -f -o nopeek.db -- ./nopeek >/dev/null 2>&1 || fail "record nopeek"
"$mapprof" diff --json peek.json peek.db nopeek.db >peek.out 2>err.out || fail "diff: $(cat err.out)"
line=$(results_line peek.out)
case $line in
"results: identical where compared (1 variable's final content matches, exit status 0 both); NOT compared: 'a[0:K]' (peek.c:"*"came back to the host before, and is never moved after"*) ;;
*) fail "a dropped result reads: $line" ;;
esac
assert_eq "$(jq -r '.results.status' peek.json)" partial "json status of a dropped result"
assert_eq "$(jq -r '[.results.differences[] | .variable + ":" + .what] | join(",")' peek.json)" \
	"a[0:K]:not_moved_after" "json differences of a dropped result"
echo "ok a dropped 'target update from' is named, not called identical: '$line'"

# A struct with a pointer member, 'map(s) map(s.v[0:N])': its host bytes
# hold a heap address, which moves between runs (ASLR).  The same program
# twice must not read DIFFER for it; a change of the member's data must.
cat >ptr.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#define N 4096
struct S { int n; double *v; };
static struct S s;
int main(void)
{
	s.n = N;
	s.v = calloc(N, sizeof(double));
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: s) map(tofrom: s.v[0:N])
		for (int i = 0; i < s.n; i++)
#ifdef WRONG
			s.v[i] += 1 + (i == 3);
#else
			s.v[i] += 1;
#endif
	}
	printf("%g\n", s.v[3]);
	return 0;
}
C
ompcc -O1 -g ptr.c -o ptr && ompcc -O1 -g -DWRONG ptr.c -o ptr_wrong || fail "cannot build ptr.c"
for x in ptr.1:ptr ptr.2:ptr ptr.w:ptr_wrong; do
	"$mapprof" record -f -o "${x%%:*}.db" -- "./${x#*:}" >/dev/null 2>&1 || fail "record ${x#*:}"
done
"$mapprof" diff --json ptr.json ptr.1.db ptr.2.db >ptr.out 2>err.out || fail "diff: $(cat err.out)"
line=$(results_line ptr.out)
case $line in
"results: DIFFER"*) fail "the same program twice reads DIFFER for a struct holding a pointer: $line" ;;
esac
s_what=$(jq -r '[.results.differences[] | select(.variable == "s") | .what] | join(",")' ptr.json)
case $s_what in
"" | holds_pointer) ;;
*) fail "the struct's difference: $s_what" ;;
esac
"$mapprof" diff --json ptrw.json ptr.1.db ptr.w.db >ptrw.out 2>err.out || fail "diff: $(cat err.out)"
case $(results_line ptrw.out) in
"results: DIFFER: 's.v[0:N]'"*"final content differs"*) ;;
*) fail "a changed member's data is not named: $(results_line ptrw.out)" ;;
esac
echo "ok a struct holding a pointer: not DIFFER for the same program ($line); its member's change is"
