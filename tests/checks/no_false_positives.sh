#!/usr/bin/env bash
# tests/checks/no_false_positives.sh - 'record --check' on programs without
# mapping bugs: every sample (samples/, samples/procs' first process), every
# program of bench/real (naive and fixed, small sizes) and every hazard
# program (tests/hazards/) gives zero check findings, and the same waste
# findings (kind, flavour, fingerprint, occurrences, bytes) as a recording
# without --check.  One recording of each without --check, one with.
. "$(dirname "$0")/../e2e/lib.sh"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter $dir"
S=$MAPPROF_BUILD/samples
progs=()
for p in duplicate_transfer exit_in_data_region jacobi_like nowait_threads offload_in_library \
	 repeated_alloc round_trip two_devices unused_alloc unused_transfer well_mapped; do
	[ -x "$S/$p" ] || fail "no sample '$S/$p' (hint: make samples)"
	progs+=("$p|$S/$p")
done
for f in "$MAPPROF_SRC"/tests/hazards/*.c; do
	n=hazard_$(basename "$f" .c)
	compile_offload "$f" "$n" -O1 -g
	progs+=("$n|./$n")
done
compile_offload "$MAPPROF_SRC/tests/e2e/struct_member.c" struct_member -O1 -g
progs+=("struct_member|./struct_member")
# bench/real at sizes that run in well under a second each.
declare -A size=([lu]=256 [stencil]=128 [cg]=5 [bfs]=1 [stream]=20 [tealeaf]="64 2" [monitor]=8192 [heat]=128)
for p in lu stencil cg bfs stream tealeaf monitor heat; do
	compile_offload "$MAPPROF_SRC/bench/real/$p.c" "real_$p.naive" -O2 -g -lm
	compile_offload "$MAPPROF_SRC/bench/real/$p.c" "real_$p.fixed" -O2 -g -DFIXED -lm
	progs+=("real_$p.naive|./real_$p.naive ${size[$p]}" "real_$p.fixed|./real_$p.fixed ${size[$p]}")
done

# The waste findings of a report, one line each, in report order.
waste() {
	"$PYTHON" - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    print(f["kind"], f["flavour"], f["fingerprint"], f["occurrences"], f["bytes"])
PY
}

for e in "${progs[@]}"; do
	name=${e%%|*}
	cmd=${e#*|}
	# shellcheck disable=SC2086
	record_prog "$name.off.db" $cmd >/dev/null
	# shellcheck disable=SC2086
	MAPPROF_CHECK=1 record_prog "$name.on.db" $cmd >/dev/null
	assert_eq "$(q "$name.off.db" "select count(*) from check_raw")" 0 "$name: check rows without --check"
	assert_eq "$(q "$name.off.db" "select count(*) from stats_raw where name = 'check'")" 0 \
		"$name: a 'check' stat without --check"
	assert_eq "$(q "$name.on.db" "select value from stats_raw where name = 'check'")" 1 \
		"$name: the 'check' stat with --check"
	for m in off on; do
		"$MAPPROF_BUILD/mapprof" report -q --no-html --json "$name.$m.json" "$name.$m.db" 2>/dev/null ||
			fail "$name: report of the $m recording failed"
	done
	got=$("$PYTHON" -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d.get("checks"); print(len(c["findings"]) if c else "none")' "$name.on.json")
	[ "$got" = 0 ] || fail "$name: $got check findings with --check: $(q "$name.on.db" 'select * from check_raw')"
	"$PYTHON" -c 'import json,sys; sys.exit("checks" in json.load(open(sys.argv[1])))' "$name.off.json" ||
		fail "$name: report.json has 'checks' for a run recorded without --check"
	assert_eq "$(waste "$name.on.json")" "$(waste "$name.off.json")" "$name: waste findings with --check"
	echo "ok $name"
done

# The multi-process samples: every process's database, none with a check row.
for p in fork_child exec_chain; do
	[ -x "$S/procs/$p" ] || fail "no sample '$S/procs/$p' (hint: make samples)"
	mkdir "procs_$p" && (cd "procs_$p" && MAPPROF_CHECK=1 record_prog "$p.db" "$S/procs/$p" >/dev/null)
	dbs=$(ls "procs_$p"/*.db | wc -l)
	[ "$dbs" -ge 2 ] || fail "procs/$p: $dbs databases, want a process's each"
	for db in "procs_$p"/*.db; do
		assert_eq "$(q "$db" "select count(*) from check_raw")" 0 "procs/$p: check rows in $(basename "$db")"
	done
	echo "ok procs/$p ($dbs processes)"
done
