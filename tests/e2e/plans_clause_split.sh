#!/usr/bin/env bash
# plans_clause_split.sh - a plan that changes one variable's map type in a
# clause that lists several (tests/hazards/clause_list.c:
# 'map(tofrom: pos[0:N], mass[0:N], vel[0:N])', mass and vel only read on
# the device) splits the list: every variable that came back unchanged gets
# a 'map(to: ...)' clause of its own, not only the first, and the one that
# came back changed keeps 'tofrom'.  The patch applies, the program prints
# the same, and recorded again it has no round trip left.  Members of one
# struct are told apart (tests/hazards/struct_members.c: s.a changed, s.b
# not; both start with 's').  A struct and its pointer's data get updates
# of their own; two members of one struct share one.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq (apt-get install jq)"
command -v patch >/dev/null || skip "no patch (apt-get install patch)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
name=clause_list
mkdir "$t/a" "$t/b"
cp "$MAPPROF_SRC/tests/hazards/$name.c" "$t/a/"
(cd "$t/a" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c") || fail "cannot build $name.c"
(cd "$t/a" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record: $(cat "$t/a/err")"
"$m" report -q --no-html --json "$t/a/r.json" "$t/a/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
assert_eq "$(jq -r '.plans[0].edit.kind' "$t/a/r.json")" map_type "the plan's kind"
assert_eq "$(jq '[.findings[] | select(.kind == "round_trip")] | length' "$t/a/r.json")" 2 "round trips before"
patch=$(jq -r '.plans[0].edit.patch // empty' "$t/a/r.json")
[ -n "$patch" ] || fail "no patch: $(jq -r '.plans[0].edit.text' "$t/a/r.json")"
added=$(grep '^+#pragma' <<<"$patch")
for want in "map(to: mass[0:N])" "map(to: vel[0:N])" "map(tofrom: pos[0:N])"; do
	grep -qF "$want" <<<"$added" || fail "the patched line lacks '$want': $added"
done
grep -q "mass.*vel\|vel.*mass" <<<"$(jq -r '.plans[0].edit.text' "$t/a/r.json")" ||
	fail "the plan's text does not name both variables: $(jq -r '.plans[0].edit.text' "$t/a/r.json")"
cp "$t/a/$name.c" "$t/b/"
(cd "$t/b" && patch -p1 -s <<<"$patch") || fail "the patch does not apply"
(cd "$t/b" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c") || fail "cannot build the patched $name.c"
(cd "$t/b" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record (patched): $(cat "$t/b/err")"
assert_eq "$(cat "$t/b/out")" "$(cat "$t/a/out")" "the patched program's output"
"$m" report -q --no-html --json "$t/b/r.json" "$t/b/r.db" 2>"$t/err" || fail "report (patched): $(cat "$t/err")"
assert_eq "$(jq '[.findings[] | select(.kind == "round_trip")] | length' "$t/b/r.json")" 0 "round trips after the patch"

# Members of one struct (tests/hazards/struct_members.c): 's.b' retyped, 's.a' (changed) kept.
name=struct_members
mkdir "$t/c"
cp "$MAPPROF_SRC/tests/hazards/$name.c" "$t/c/"
(cd "$t/c" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c") || fail "cannot build $name.c"
(cd "$t/c" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record: $(cat "$t/c/err")"
"$m" report -q --no-html --json "$t/c/r.json" "$t/c/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
added=$(jq -r '.plans[0].edit.patch // empty' "$t/c/r.json" | grep '^+#pragma')
grep -qF "map(to: s.b[0:N]) map(tofrom: s.a[0:N])" <<<"$added" ||
	fail "struct members: the patched line is not 'map(to: s.b[0:N]) map(tofrom: s.a[0:N])': $added"

# A struct and its pointer's data ('map(tofrom: s) map(tofrom: s.v[0:N])')
# kept by a region: the updates the region needs name 's' and 's.v[0:N]',
# which clang takes only in 'target update' directives of their own
# ("variable can appear only once").  The patch builds and keeps the output.
mkdir "$t/d" "$t/e"
cat >"$t/d/attach.c" <<'PROG'
#include <stdio.h>
#define N 4096
struct vec { double *v; int n; };
int main(void)
{
	static double buf[N];
	struct vec s = { buf, N };
	double sum = 0;
	for (int i = 0; i < N; i++)
		buf[i] = i;
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: s) map(tofrom: s.v[0:N])
		for (int i = 0; i < N; i++)
			s.v[i] += 1.0;
	}
	for (int i = 0; i < N; i++)
		sum += buf[i];
	printf("%.1f\n", sum);
	return 0;
}
PROG
(cd "$t/d" && ompcc -g -O1 -Wall -Werror -o attach attach.c) || fail "cannot build attach.c"
(cd "$t/d" && "$m" record -f -o r.db -- ./attach >out 2>err) || fail "record: $(cat "$t/d/err")"
"$m" report -q --no-html --json "$t/d/r.json" "$t/d/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
patch=$(jq -r '.plans[0].edit.patch // empty' "$t/d/r.json")
[ -n "$patch" ] || fail "attach.c: no patch: $(jq -r '.plans[0].edit.text' "$t/d/r.json")"
grep '^+#pragma omp target update' <<<"$patch" | grep -E '\(s\b.*, *s\b|s\.v.*, *s\b' &&
	fail "attach.c: one update names 's' twice: $patch"
cp "$t/d/attach.c" "$t/e/"
(cd "$t/e" && patch -p1 -s <<<"$patch") || fail "attach.c: the patch does not apply"
(cd "$t/e" && ompcc -g -O1 -Wall -Werror -o attach attach.c 2>err) ||
	fail "attach.c: the patched program does not build: $(cat "$t/e/err") $patch"
(cd "$t/e" && ./attach >out) || fail "attach.c: the patched program fails"
assert_eq "$(cat "$t/e/out")" "$(cat "$t/d/out")" "attach.c: the patched program's output"

# Two members of one struct the host changes in the loop ('p.x[0:N]',
# 'p.y[0:N]'): one 'target update' may name both (they do not overlap), so
# the plan writes one each way, not one per member; it builds and keeps the
# output.
mkdir "$t/f" "$t/g"
cat >"$t/f/soa.c" <<'PROG'
#include <stdio.h>
#define N 65536
struct soa { double *x, *y; };
int main(void)
{
	static double xs[N], ys[N];
	struct soa p = { xs, ys };
	for (int it = 0; it < 4; it++) {
		for (int i = 0; i < N; i++) {
			p.x[i] += 1;
			p.y[i] += 2;
		}
#pragma omp target map(tofrom: p.x[0:N], p.y[0:N])
		for (int i = 0; i < N; i++) {
			p.x[i] *= 0.5;
			p.y[i] *= 0.5;
		}
	}
	printf("%f %f\n", xs[5], ys[5]);
	return 0;
}
PROG
(cd "$t/f" && ompcc -g -O1 -Wall -Werror -o soa soa.c) || fail "cannot build soa.c"
(cd "$t/f" && "$m" record -f -o r.db -- ./soa >out 2>err) || fail "record: $(cat "$t/f/err")"
"$m" report -q --no-html --json "$t/f/r.json" "$t/f/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
patch=$(jq -r '.plans[0].edit.patch // empty' "$t/f/r.json")
[ -n "$patch" ] || fail "soa.c: no patch: $(jq -r '.plans[0].edit.text' "$t/f/r.json")"
assert_eq "$(grep -c '^+#pragma omp target update to(' <<<"$patch")" 1 "soa.c: 'target update to' directives"
grep '^+#pragma omp target update to(' <<<"$patch" | grep -q 'p\.x.*p\.y\|p\.y.*p\.x' ||
	fail "soa.c: the update does not name both members: $patch"
cp "$t/f/soa.c" "$t/g/"
(cd "$t/g" && patch -p1 -s <<<"$patch") || fail "soa.c: the patch does not apply"
(cd "$t/g" && ompcc -g -O1 -Wall -Werror -o soa soa.c 2>err) ||
	fail "soa.c: the patched program does not build: $(cat "$t/g/err") $patch"
(cd "$t/g" && ./soa >out) || fail "soa.c: the patched program fails"
assert_eq "$(cat "$t/g/out")" "$(cat "$t/f/out")" "soa.c: the patched program's output"
echo "ok: a clause list split, every unchanged variable retyped, struct members told apart, a struct and its pointer's data updated apart, two members updated together, the results kept"
