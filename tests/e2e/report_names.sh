#!/usr/bin/env bash
# report_names.sh - findings named as the user wrote them (issue 26, items 9
# and 13): a section spelled with macros ('f[0:NX*NY]') is shown and
# suggested as the source spells it, not as clang expanded it ('64 * 64');
# a struct mapped with its pointer member ('map(tofrom: s) map(tofrom:
# s.v[0:N])' in a loop) gives one finding per directive, variable and kind,
# the struct named 's' and its member 's.v[0:N]'; omp_target_memcpy's
# transfers are named after the call ('omp_target_memcpy(d <- h)').
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

cat >names.c <<'C'
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#define NX 64
#define NY 32
#define N 4096
struct vec { int n; double *v; };
int main(void)
{
	static double f[NX * NY];
	struct vec s;
	s.n = N;
	s.v = calloc(N, sizeof(double));
	for (int it = 0; it < 6; it++) {
#pragma omp target map(tofrom: f[0:NX*NY])
		for (int i = 0; i < NX * NY; i++)
			f[i] *= 2;
#pragma omp target map(tofrom: s) map(tofrom: s.v[0:N])
		for (int i = 0; i < s.n; i++)
			s.v[i] += 1;
	}
	double *h = malloc(N * sizeof(double)), *dv = omp_target_alloc(N * sizeof(double), 0);
	for (int i = 0; i < N; i++)
		h[i] = i;
	for (int it = 0; it < 3; it++)
		omp_target_memcpy(dv, h, N * sizeof(double), 0, 0, 0, omp_get_initial_device());
	omp_target_free(dv, 0);
	printf("%g %g\n", f[1], s.v[5]);
	return 0;
}
C
compile_offload names.c names -g
"$mapprof" run -o names --no-html --json names.json -- ./names >out 2>err || fail "run names: $(cat err)"

# Sections as the source spells them, in the summary and the suggested clauses.
grep -q "64 \* 32" out names.json && fail "a section spelled as clang expanded it: $(grep -h '64 \* 32' out names.json | head -3)"
grep -q "f\[0:NX\*NY\]" out || fail "the summary does not name f[0:NX*NY]: $(cat out)"
[ "$(jq '[.plans[] | select(.edit.clauses != null and (.edit.clauses | test("f\\[0:NX\\*NY\\]")))] | length' names.json)" -ge 1 ] ||
	fail "no suggested clause with f[0:NX*NY]: $(jq -c '[.plans[].edit.clauses]' names.json)"

# The struct: one finding per kind and variable at its directive, named.
line=$(grep -n 'map(tofrom: s) map' names.c | cut -d: -f1)
at_line() { jq -r --argjson l "$line" '.findings[] | select(.locations[0].line == $l) | "\(.kind) \(.flavour) \(.devices | tostring) \(.variable.name) \(.data.bytes)"' names.json; }
at_line >struct.txt
[ -s struct.txt ] || fail "no finding at the struct's directive (line $line)"
dups=$(sort struct.txt | uniq -d)
[ -z "$dups" ] || fail "several findings of one kind, flavour, variable and size at line $line: $dups"
[ "$(wc -l <struct.txt)" -le 8 ] || fail "one finding per occurrence at line $line? $(cat struct.txt)"
grep -q " s 16$" struct.txt || fail "the struct 's' is not named: $(cat struct.txt)"
grep -q " s\.v\[0:N\] " struct.txt || fail "the member 's.v[0:N]' is not named: $(cat struct.txt)"
occ=$(jq --argjson l "$line" '[.findings[] | select(.locations[0].line == $l and .kind == "repeated_alloc" and .variable.name == "s.v[0:N]") | .occurrences] | add' names.json)
assert_eq "$occ" 5 "repeated allocations of s.v[0:N] (6 iterations: one finding of 5)"

# omp_target_memcpy: named after the call, not an address.
mline=$(grep -n 'omp_target_memcpy(dv' names.c | cut -d: -f1)
names=$(jq -r --argjson l "$mline" '[.findings[] | select(.locations[0].line == $l) | .variable.name] | unique | join(",")' names.json)
[ -n "$names" ] || fail "no finding at the omp_target_memcpy call (line $mline)"
assert_eq "$names" "omp_target_memcpy(dv <- h)" "omp_target_memcpy's findings: the variable"

# The kinds' rows add up to more than the total (a transfer both a duplicate
# and a round trip's leg): the summary says why (issue 26, item 9).
grep -q "the rows overlap: one operation can be in several findings" out ||
	fail "no word on the overlapping rows: $(sed -n 1,12p out)"
grep -q "the total counts each operation once" out || fail "the overlap note: how the total counts"
echo ok
