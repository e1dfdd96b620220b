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

# plan_of DIR NAME: DIR/NAME.c built, recorded (its output in DIR/out) and
# reported (DIR/r.json); the first plan's patch into $patch ('' if none).
plan_of() {
	local dir=$1 name=$2
	(cd "$dir" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c") || fail "cannot build $name.c"
	(cd "$dir" && "$m" record -f -o r.db -- "./$name" >out 2>err) || fail "record: $(cat "$dir/err")"
	"$m" report -q --no-html --json "$dir/r.json" "$dir/r.db" 2>"$t/err" || fail "report: $(cat "$t/err")"
	patch=$(jq -r '.plans[0].edit.patch // empty' "$dir/r.json")
}

# patched DIR NAME COPY: $patch applied to a copy of DIR/NAME.c in COPY,
# which builds with -Wall -Werror, is recorded (COPY/r.db) and prints what
# DIR's program printed.
patched() {
	local dir=$1 name=$2 copy=$3
	mkdir -p "$copy"
	cp "$dir/$name.c" "$copy/"
	(cd "$copy" && patch -p1 -s <<<"$patch") || fail "$name.c: the patch does not apply"
	(cd "$copy" && ompcc -g -O1 -Wall -Werror -o "$name" "$name.c" 2>err) ||
		fail "$name.c: the patched program does not build: $(cat "$copy/err") $patch"
	(cd "$copy" && "$m" record -f -o r.db -- "./$name" >out 2>err) ||
		fail "$name.c: record (patched): $(cat "$copy/err")"
	assert_eq "$(cat "$copy/out")" "$(cat "$dir/out")" "$name.c: the patched program's output"
}

name=clause_list
mkdir "$t/a"
cp "$MAPPROF_SRC/tests/hazards/$name.c" "$t/a/"
plan_of "$t/a" "$name"
assert_eq "$(jq -r '.plans[0].edit.kind' "$t/a/r.json")" map_type "the plan's kind"
assert_eq "$(jq '[.findings[] | select(.kind == "round_trip")] | length' "$t/a/r.json")" 2 "round trips before"
[ -n "$patch" ] || fail "no patch: $(jq -r '.plans[0].edit.text' "$t/a/r.json")"
added=$(grep '^+#pragma' <<<"$patch")
for want in "map(to: mass[0:N])" "map(to: vel[0:N])" "map(tofrom: pos[0:N])"; do
	grep -qF "$want" <<<"$added" || fail "the patched line lacks '$want': $added"
done
grep -q "mass.*vel\|vel.*mass" <<<"$(jq -r '.plans[0].edit.text' "$t/a/r.json")" ||
	fail "the plan's text does not name both variables: $(jq -r '.plans[0].edit.text' "$t/a/r.json")"
patched "$t/a" "$name" "$t/b"
"$m" report -q --no-html --json "$t/b/r.json" "$t/b/r.db" 2>"$t/err" || fail "report (patched): $(cat "$t/err")"
assert_eq "$(jq '[.findings[] | select(.kind == "round_trip")] | length' "$t/b/r.json")" 0 "round trips after the patch"

# Members of one struct (tests/hazards/struct_members.c): 's.b' retyped, 's.a' (changed) kept.
name=struct_members
mkdir "$t/c"
cp "$MAPPROF_SRC/tests/hazards/$name.c" "$t/c/"
plan_of "$t/c" "$name"
added=$(grep '^+#pragma' <<<"$patch")
grep -qF "map(to: s.b[0:N]) map(tofrom: s.a[0:N])" <<<"$added" ||
	fail "struct members: the patched line is not 'map(to: s.b[0:N]) map(tofrom: s.a[0:N])': $added"

# A struct and its pointer's data ('map(tofrom: s) map(tofrom: s.v[0:N])')
# kept by a region: the updates the region needs name 's' and 's.v[0:N]',
# which clang takes only in 'target update' directives of their own
# ("variable can appear only once").  The patch builds and keeps the output.
mkdir "$t/d"
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
plan_of "$t/d" attach
[ -n "$patch" ] || fail "attach.c: no patch: $(jq -r '.plans[0].edit.text' "$t/d/r.json")"
grep '^+#pragma omp target update' <<<"$patch" | grep -E '\(s\b.*, *s\b|s\.v.*, *s\b' &&
	fail "attach.c: one update names 's' twice: $patch"
patched "$t/d" attach "$t/e"

# Two members of one struct the host changes in the loop ('p.x[0:N]',
# 'p.y[0:N]'): one 'target update' may name both (they do not overlap), so
# the plan writes one each way, not one per member; it builds and keeps the
# output.
mkdir "$t/f"
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
plan_of "$t/f" soa
[ -n "$patch" ] || fail "soa.c: no patch: $(jq -r '.plans[0].edit.text' "$t/f/r.json")"
assert_eq "$(grep -c '^+#pragma omp target update to(' <<<"$patch")" 1 "soa.c: 'target update to' directives"
grep '^+#pragma omp target update to(' <<<"$patch" | grep -q 'p\.x.*p\.y\|p\.y.*p\.x' ||
	fail "soa.c: the update does not name both members: $patch"
patched "$t/f" soa "$t/g"
echo "ok: a clause list split, every unchanged variable retyped, struct members told apart, a struct and its pointer's data updated apart, two members updated together, the results kept"
