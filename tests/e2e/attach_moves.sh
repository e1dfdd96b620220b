#!/usr/bin/env bash
# attach_moves.sh - pointers attached again because the host moved them
# (attach_moves.c: p.v and q.v turn between two buffers each, everything
# mapped once; the loop's construct maps their pointees):
#   - each attach is recorded with the map entry whose pointer it writes
#     (data_op_raw.map_index -2 - i), and every finding of attaches holds
#     those of one pointer only, named after it ('p.v (pointer attach)',
#     'q.v (pointer attach)'), though the runtime sends them all from one
#     buffer of its own;
#   - the plan for the loop (a region for 'sum') claims none of them: the
#     pointers move, so the runtime attaches them again inside any region,
#     and the patched program, recorded again, still does.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "no jq"
command -v sqlite3 >/dev/null || skip "no sqlite3"
command -v patch >/dev/null || skip "no patch"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
cp "$MAPPROF_SRC/tests/e2e/attach_moves.c" am.c
compile_offload am.c am -g
record_prog am.db ./am >out
"$mapprof" report -q --no-html --json am.json am.db >/dev/null 2>err || fail "report: $(cat err)"
j=am.json

[ "$(q am.db "SELECT count(*) FROM data_op_raw WHERE map_index < -1")" -ge 8 ] ||
	fail "attaches recorded with their map entry: $(q am.db "SELECT count(*) FROM data_op_raw WHERE map_index < -1")"
att=$(jq -r '[.findings[] | select(.variable.name | endswith("(pointer attach)")) | .variable.name] | unique | join(",")' $j)
assert_eq "$att" "p.v (pointer attach),q.v (pointer attach)" "the attach findings' names"
# Each attach finding's operations: one map entry.
mixed=$(q am.db "SELECT e.finding_id FROM finding_events e JOIN data_op_raw d ON d.seq = e.seq
	GROUP BY e.finding_id HAVING sum(d.map_index < -1) > 0 AND count(DISTINCT COALESCE(d.map_index, -1)) > 1")
[ -z "$mixed" ] || fail "findings holding attaches of several pointers: $mixed"

line=$(grep -n 'map(to: p.v\[0:N\], q.v\[0:N\])' am.c | cut -d: -f1)
claimed=$(jq --argjson l "$line" '[.plans[] | select(.directive.line == $l) | .findings[]] as $c
	| [.findings[] | select(.variable.name | endswith("(pointer attach)")) | .id | select(. as $i | $c | index($i))] | length' $j)
assert_eq "$claimed" 0 "attach findings the plan for line $line claims (its region cannot stop the pointers moving)"
# The patch applied: the attaches are still there, and the program prints the same.
jq -r --argjson l "$line" '[.plans[] | select(.directive.line == $l) | .edit.patch // empty][0] // empty' $j >p.patch
[ -s p.patch ] || fail "no patch for the loop at line $line: $(jq -c '.plans' $j | head -c 400)"
mkdir fixed && cp am.c fixed/ && (cd fixed && patch -sp1 <../p.patch) || fail "the patch does not apply"
compile_offload fixed/am.c fixed/am -g
record_prog fixed.db ./fixed/am >fixed.out
cmp -s out fixed.out || fail "the patched program prints $(cat fixed.out), not $(cat out)"
[ "$(q fixed.db "SELECT count(*) FROM data_op_raw WHERE map_index < -1")" -ge 8 ] ||
	fail "the patched program attaches fewer pointers: $(q fixed.db "SELECT count(*) FROM data_op_raw WHERE map_index < -1")"
echo ok
