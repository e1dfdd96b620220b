#!/usr/bin/env bash
# record_ranks.sh - 'mapprof record --ranks LIST': only those MPI ranks are
# recorded (samples/mpi/mpi_ranks.c, 3 ranks, --ranks 0,2), in both launch
# orders:
#
#   mpirun -n 3 mapprof record --ranks 0,2 -o run.%r.db -- ./mpi_ranks
#       rank 1's record runs the program itself: no collector loaded
#   mapprof record --ranks 0,2 -o run.%r.db -- mpirun -n 3 ./mpi_ranks
#       rank 1's collector stays off (MAPPROF_RANKS)
#
# Rank 1 gets no database, the program's output is unchanged, and the
# merged report says which ranks were not recorded and gives each finding's
# min / mean / max over the processes that have it.  A bad LIST is a usage
# error.  Skipped (77) when Open MPI is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null && command -v mpicc >/dev/null ||
	skip "Open MPI is missing (apt-get install openmpi-bin libopenmpi-dev, or make test-deps)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
mapprof=$MAPPROF_BUILD/mapprof
dir=$(tmpdir)
cd "$dir"
mpirun=(mpirun --oversubscribe --allow-run-as-root -n 3)
OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
	-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
	fail "cannot build samples/mpi/mpi_ranks.c with mpicc"
want_out="mpi_ranks: 3 ranks, 6 regions"

# check WHERE: run.0.db and run.2.db only, each its rank; the merged report.
check() {
	local d=$1
	assert_eq "$(cd "$d" && ls run*.db | tr '\n' ' ')" "run.0.db run.2.db " "$d: databases"
	for r in 0 2; do
		assert_eq "$(q "$d/run.$r.db" "SELECT rank FROM process")" "$r" "$d/run.$r.db: its rank"
		assert_eq "$(q "$d/run.$r.db" "SELECT value FROM env_raw WHERE name = 'MAPPROF_RANKS'")" "0,2" \
			"$d/run.$r.db: the ranks recorded"
	done
	"$mapprof" report --json "$d/report.json" --no-html "$d/run.0.db" "$d/run.2.db" >"$d/summary" 2>"$d/err" ||
		fail "$d: report: $(cat "$d/err")"
	grep -q "recorded ranks 0,2$2" "$d/summary" || fail "$d: summary: $(cat "$d/summary")"
	assert_eq "$(jq -S -c '.ranks' "$d/report.json")" "$3" "$d: report.json's ranks"
	# Rank 2 ran 3 target regions: its findings, min = mean = max (one process has each).
	jq -e '.merged_findings | length > 0' "$d/report.json" >/dev/null || fail "$d: no findings"
	jq -e '[.merged_findings[] | .per_process as $p | .each as $e
		| ["occurrences", "bytes", "savings_ns"][] as $k
		| ($p[$k].min == ($e[$k] | min)) and ($p[$k].max == ($e[$k] | max))
		  and ($p[$k].mean == (($e[$k] | add) / ($e[$k] | length)))] | all' "$d/report.json" >/dev/null ||
		fail "$d: per_process min/mean/max: $(jq -c '[.merged_findings[] | {per_process, each}]' "$d/report.json")"
}

mkdir inside
(cd inside && timeout 120 "${mpirun[@]}" "$mapprof" record --ranks 0,2 -o 'run.%r.db' -- ../mpi_ranks \
	>out 2>err) || fail "mpirun mapprof record --ranks: $(cat inside/err)"
assert_eq "$(cat inside/out)" "$want_out" "inside: the program's output"
check inside " of 3; not recorded: 1" '{"not_recorded":"1","not_recorded_count":1,"of":3,"recorded":"0,2"}'
echo "ok mpirun -n 3 mapprof record --ranks 0,2: $(cat inside/summary | sed -n 2p)"

# Rank 1 ran without the collector: its environment and its maps say so.
mkdir maps
(cd maps && timeout 120 "${mpirun[@]}" "$mapprof" record --ranks 0,2 -o 'run.%r.db' -- sh -c \
	'grep -q libmapprof-collector /proc/self/maps; echo "rank $OMPI_COMM_WORLD_RANK: $OMP_TOOL_LIBRARIES|$?"' \
	>out 2>err) || fail "mpirun mapprof record --ranks -- sh: $(cat maps/err)"
case $(grep '^rank 1:' maps/out) in
"rank 1: |1") ;;
*) fail "rank 1 left out runs with the collector named or loaded: $(cat maps/out)" ;;
esac
grep -q "^rank 0: .*libmapprof-collector" maps/out || fail "rank 0 is recorded: $(cat maps/out)"
echo "ok a rank left out runs with no collector in OMP_TOOL_LIBRARIES nor mapped"

mkdir outside
(cd outside && timeout 120 "$mapprof" record --ranks 0,2 -o 'run.%r.db' -- "${mpirun[@]}" ../mpi_ranks \
	>out 2>err) || fail "mapprof record --ranks -- mpirun: $(cat outside/err)"
assert_eq "$(cat outside/out)" "$want_out" "outside: the program's output"
# record outside mpirun does not know the job's size: each rank's collector keeps it.
check outside " of 3; not recorded: 1" '{"not_recorded":"1","not_recorded_count":1,"of":3,"recorded":"0,2"}'
echo "ok mapprof record --ranks 0,2 -- mpirun -n 3"

for bad in '' 1- 2-1 a 0,,1 ' 1' -1; do
	rc=0
	"$mapprof" record --ranks "$bad" -o x.db -- true 2>err || rc=$?
	assert_eq "$rc" 2 "--ranks '$bad'"
	grep -q "mapprof: error: --ranks takes ranks and ranges" err || fail "--ranks '$bad': $(cat err)"
done
[ ! -e x.db ] || fail "a bad --ranks recorded"
echo "ok a bad --ranks is a usage error"

# The merged report with 'ranks' and 'per_process' against docs/report-json.schema.json.
if "${PYTHON:-python3}" -c 'import jsonschema' 2>/dev/null; then
	"${PYTHON:-python3}" - "$MAPPROF_SRC/docs/report-json.schema.json" inside/report.json <<'PY' ||
import json, sys, jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
errors = list(v.iter_errors(json.load(open(sys.argv[2]))))
for e in errors[:5]:
    print("%s: %s" % ("/".join(map(str, e.absolute_path)), e.message), file=sys.stderr)
sys.exit(1 if errors else 0)
PY
		fail "inside/report.json does not validate against the schema"
	echo "ok the merged report with ranks validates against docs/report-json.schema.json"
else
	echo "note: python3-jsonschema is missing: the schema is not checked here"
fi
