#!/usr/bin/env bash
# struct_member.sh - issue 26, item 13: a struct with a pointer member mapped
# the way C codes do ('map(tofrom: s) map(tofrom: s.v[0:N])' in a loop), the
# same through a pointer to a struct allocated anew each iteration
# ('p[0:1]', 'p->v[0:N]'), and omp_target_memcpy from two call sites
# (struct_member.c).  One finding per directive or call site, kind, flavour,
# direction and variable, never one per occurrence; every finding named
# (the struct, its member sections, the runtime's 8-byte pointer attach as
# 's.v (pointer attach)', the API's transfers as 'omp_target_memcpy(dv <-
# h)'), never by address, alike in the terminal, report.json and SARIF (one
# result per finding); two runs give the same fingerprints and 'mapprof
# diff' matches every finding.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"
cp "$MAPPROF_SRC/tests/e2e/struct_member.c" st.c
compile_offload st.c st -g
for r in 1 2; do
	"$mapprof" run -o "st$r" --no-html --json "st$r.json" --sarif "st$r.sarif" --top 100 -- ./st >"out$r" 2>"err$r" ||
		fail "run $r: $(cat "err$r")"
done
j=st1.json
nf=$(jq '.findings | length' $j)
[ "$nf" -gt 0 ] || fail "no findings"

# One finding per directive/call site, kind, flavour, direction and variable.
jq -r '.findings[] | "\(.locations[0].line) \(.kind) \(.flavour) \(.devices | tostring) \(.variable.name)"' $j | sort >keys
dups=$(uniq -d keys)
[ -z "$dups" ] || fail "several findings with one key (one per occurrence?): $dups"
[ "$nf" -le 30 ] || fail "$nf findings for 4 directives and call sites (one per occurrence?)"

# Named, never by address.
addr=$(jq -r '.findings[] | select((.variable.name // "0x") | startswith("0x")) | select(.kind != "repeated_alloc" and .kind != "unused_alloc") | "\(.id) \(.kind) at line \(.locations[0].line): \(.variable.name)"' $j)
[ -z "$addr" ] || fail "transfers named by address: $addr"
sline=$(grep -n 'map(tofrom: s) map' st.c | cut -d: -f1)
pline=$(grep -n 'map(tofrom: p\[0:1\])' st.c | cut -d: -f1)
names() { jq -r --argjson l "$1" '[.findings[] | select(.locations[0].line == $l) | .variable.name] | unique | join("|")' $j; }
sn=$(names "$sline")
pn=$(names "$pline")
case "|$sn|" in *"|s|"*) ;; *) fail "the struct 's' is not named at line $sline: $sn" ;; esac
case "|$sn|" in *"|s.v[0:N]|"*) ;; *) fail "the member 's.v[0:N]' is not named at line $sline: $sn" ;; esac
case "$sn" in *"s.v"*"(pointer attach)"*) ;; *) fail "the pointer attach of s.v is not named at line $sline: $sn" ;; esac
case "|$pn|" in *"|p[0:1]|"*) ;; *) fail "the struct 'p[0:1]' is not named at line $pline: $pn" ;; esac
case "|$pn|" in *"|p->v[0:N]|"*) ;; *) fail "the member 'p->v[0:N]' is not named at line $pline: $pn" ;; esac
for l in $(grep -n 'omp_target_memcpy(dv' st.c | cut -d: -f1); do
	assert_eq "$(names "$l")" "omp_target_memcpy(dv <- h)" "the transfers of omp_target_memcpy at line $l"
done

# The terminal names them as report.json does.
grep -q "of 's.v\[0:N\]'" out1 || fail "the terminal does not name s.v[0:N]: $(grep "^  #" out1 | head -5)"
grep -q "pointer attach)'" out1 || fail "the terminal does not name the pointer attach"
grep -q "of 'omp_target_memcpy(dv <- h)'" out1 || fail "the terminal does not name omp_target_memcpy(dv <- h)"
grep -q "of '0x" out1 && fail "the terminal names data by address: $(grep "of '0x" out1 | head -3)"

# SARIF: one result per finding, its message naming the variable.
assert_eq "$(jq '.runs[0].results | length' st1.sarif)" "$nf" "SARIF results (one per finding)"
jq -r '.runs[0].results[].message.text' st1.sarif | grep -q "of 's.v\[0:N\]'" || fail "SARIF does not name s.v[0:N]"
jq -r '.runs[0].results[].message.text' st1.sarif | grep -q "of '0x" && fail "SARIF names data by address"

# Two runs: the same fingerprints; diff matches every finding.
assert_eq "$(jq -r '.findings[].fingerprint' st1.json | sort | tr '\n' ' ')" \
	"$(jq -r '.findings[].fingerprint' st2.json | sort | tr '\n' ' ')" "fingerprints of two runs"
"$mapprof" diff st1.mapprof.db st2.mapprof.db >diff 2>&1 || true
grep -q "removed 0, remaining $nf, new 0" diff || fail "diff does not match the two runs' findings: $(grep -A4 removed diff)"
# omp_target_memcpy runs in no target construct: its operations have no map
# entry (the collector once gave them the previous construct's).
if command -v sqlite3 >/dev/null; then
	assert_eq "$(sqlite3 st1.mapprof.db 'SELECT count(*) FROM data_op_raw WHERE target_id IS NULL AND map_index IS NOT NULL')" \
		0 "operations outside a construct with a map entry"
fi
echo ok
