#!/usr/bin/env bash
# plans_fresh_faults.sh - a region saves the page faults of fresh device
# buffers that the kernels wrote first, and the plan's savings say so.
#
# A time loop maps 'in' (the same content each step: a duplicate) 'to' and
# 'out' 'from' (written by the kernel, allocated anew at every step).  On
# host offload each new buffer faults its pages in when first touched: 'in'
# by its copy (priced as a first copy: the copy is removed with its faults),
# 'out' by the kernel, which no finding's operation shows.  The plan's
# region removes every allocation of both, so its edit counts the 'out'
# allocations as fresh_allocations (STEPS - 1 of them: the region's own
# allocation of 'out' is fresh too, and faults once; none of 'in'), prices
# their faults at the run's first-copy premium (> 0 here: the run has
# first copies and copies into written memory of that size) and adds them
# to savings_ns; the summary says so in an "and:" line.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
cat >"$t/fresh.c" <<'C'
#include <stdio.h>
#define N (1 << 19)
#define STEPS 12
static double in[N], out[N];
int main(void)
{
	double sum = 0;
	for (int i = 0; i < N; i++)
		in[i] = i % 7;
	for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for map(to: in) map(from: out)
		for (int i = 0; i < N; i++)
			out[i] = in[i] * s;
		sum += out[s];
	}
	printf("fresh: %.1f\n", sum);
	return 0;
}
C
(cd "$t" && compile_offload fresh.c fresh -g -O1)
(cd "$t" && record_prog r.db ./fresh >/dev/null)
"$m" report -q --no-html --json "$t/r.json" "$t/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
plan=$(jq -c '[.plans[] | select(.edit.kind == "wrap_loop" and .edit.patch != null)][0]' "$t/r.json")
[ "$plan" != null ] || fail "no wrap_loop plan with a patch: $(jq -c '.plans' "$t/r.json")"
assert_eq "$(jq '.edit.fresh_allocations' <<<"$plan")" 11 "allocations of 'out' whose faults the region saves"
faults=$(jq '.edit.fresh_faults_ns' <<<"$plan")
[ "$faults" -gt 0 ] || fail "fresh_faults_ns is $faults: the run has first copies of that size"
# The savings are the claimed findings' operations plus the faults: more than the faults alone.
savings=$(jq '.savings_ns' <<<"$plan")
[ "$savings" -gt "$faults" ] || fail "savings_ns $savings not above fresh_faults_ns $faults"
jq -r '.edit.text' <<<"$plan" | grep -q "page faults of 11 fresh device allocations" ||
	fail "the plan's text does not name the faults: $(jq -r '.edit.text' <<<"$plan")"
"$m" report --no-html --json "$t/r2.json" "$t/r.db" 2>/dev/null | grep -q "and: the page faults of 11 fresh device allocations" ||
	fail "the summary has no 'and: the page faults' line"
echo ok
