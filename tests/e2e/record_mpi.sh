#!/usr/bin/env bash
# record_mpi.sh - an MPI job whose 4 ranks offload (samples/mpi/mpi_ranks.c:
# rank r runs r + 1 target regions), recorded in both launch orders:
#
#   mapprof record -o run.db -- mpirun -n 4 ./mpi_ranks        (record outside)
#   mpirun -n 4 mapprof record -o run.%r.db -- ./mpi_ranks     (record per rank)
#
# Every rank gets a database with its rank in the process row, holding
# exactly what the independent tracer saw in that rank (the tracer writes
# one file per rank: MAPPROF_TRACER_OUT with %r).  Skipped (77) only when
# Open MPI is missing; 'make test-deps' installs it, and under CI a skip fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null && command -v mpicc >/dev/null ||
	skip "Open MPI is missing (apt-get install openmpi-bin libopenmpi-dev, or make test-deps)"
mapprof=$MAPPROF_BUILD/mapprof
dir=$(tmpdir)
cd "$dir"
NP=4
mpirun=(mpirun --oversubscribe --allow-run-as-root -n "$NP")
OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
	-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
	fail "cannot build samples/mpi/mpi_ranks.c with mpicc"

# The ground truth, rank by rank.
OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/tests/libtracer.so MAPPROF_TRACER_OUT="$dir/t.%r.tsv" \
	timeout 120 "${mpirun[@]}" ./mpi_ranks >tracer.out || fail "mpi_ranks failed under the tracer"
assert_eq "$(cat tracer.out)" "mpi_ranks: $NP ranks, 10 regions" "mpi_ranks: its output"
for r in $(seq 0 $((NP - 1))); do
	n=$((r + 1))
	assert_eq "$(tracer_counts "t.$r.tsv")" "alloc=$n to_device=$n from_device=$n delete=$n kernel=$n" \
		"tracer: rank $r vs the sample's header"
done

# check_ranks DB...: one database per rank, each exactly its rank's tracer output.
check_ranks() {
	local d r seen=""
	assert_eq "$#" "$NP" "databases ($*)"
	for d in "$@"; do
		r=$(q "$d" "SELECT rank FROM process")
		[ -n "$r" ] || fail "$d: no rank in its process row"
		seen="$seen $r"
		assert_eq "$(q "$d" "SELECT rank_var, status FROM process, run")" "OMPI_COMM_WORLD_RANK|complete" \
			"$d: rank variable and status"
		assert_eq "$(db_counts "$d")" "$(tracer_counts "t.$r.tsv")" "$d (rank $r): counts vs the tracer"
		assert_eq "$(db_contents "$d")" "$(tracer_contents "t.$r.tsv")" "$d (rank $r): contents vs the tracer"
		assert_eq "$(q "$d" "SELECT COUNT(*) FROM modules WHERE path LIKE '%/mpi_ranks'")" 1 \
			"$d: the executable in the module map"
	done
	assert_eq "$(tr ' ' '\n' <<<"$seen" | sort -n | tr '\n' ' ')" " 0 1 2 3 " "ranks recorded"
}

# Order 1: record outside mpirun.  mpirun itself does not offload; its ranks
# cannot use record's descriptors (mpirun closes them) and write spools of
# their own: the first takes run.db, the others run.PID.db.
mkdir outside && cd outside
timeout 120 "$mapprof" record -o run.db -- "${mpirun[@]}" ../mpi_ranks >out 2>err ||
	fail "record -- mpirun: $(cat err)"
cmp -s out ../tracer.out || fail "record -- mpirun: stdout differs"
cd "$dir"
check_ranks outside/run*.db
[ -f outside/run.db ] || fail "record -- mpirun: no run.db: $(ls outside)"
[ ! -e outside/run.db.spool.d ] || fail "record -- mpirun: spool directory left"
echo "ok mapprof record -o run.db -- mpirun -n $NP: $(cd outside && for d in run*.db; do
	printf '%s rank %s: %s; ' "$d" "$(q "$d" 'SELECT rank FROM process')" "$(db_counts "$d")"; done)"

# Order 1 with %r: the names say the rank.
mkdir outside_r && cd outside_r
timeout 120 "$mapprof" record -o 'run.%r.db' -- "${mpirun[@]}" ../mpi_ranks >out 2>err ||
	fail "record -o run.%r.db -- mpirun: $(cat err)"
cd "$dir"
check_ranks outside_r/run.{0,1,2,3}.db
for r in 0 1 2 3; do
	assert_eq "$(q "outside_r/run.$r.db" "SELECT rank FROM process")" "$r" "run.$r.db: its rank"
done
echo "ok mapprof record -o run.%r.db -- mpirun -n $NP"

# Order 2: one record per rank.
mkdir inside && cd inside
timeout 120 "${mpirun[@]}" "$mapprof" record -o 'run.%r.db' -- ../mpi_ranks >out 2>err ||
	fail "mpirun -- mapprof record: $(cat err)"
cmp -s out ../tracer.out || fail "mpirun -- mapprof record: stdout differs"
cd "$dir"
check_ranks inside/run.{0,1,2,3}.db
for r in 0 1 2 3; do
	assert_eq "$(q "inside/run.$r.db" "SELECT rank, started, ended, exit_status FROM process")" \
		"$r|record|exited|0" "inside/run.$r.db: its process row"
done
echo "ok mpirun -n $NP mapprof record -o run.%r.db: $(cd inside && for r in 0 1 2 3; do
	printf 'rank %s: %s; ' "$r" "$(db_counts "run.$r.db")"; done)"

# The README's CI example over an MPI job, as written: the SARIF log merged
# over the ranks and --fail-on judged rank by rank (issue #26 item 3).
cd inside
ci=$(awk '/<!-- mpi-ci: tests/ { on = 1; next } /<!-- mpi-ci: end/ { on = 0 } on && /^mapprof report/' \
	"$MAPPROF_SRC/README.md")
[ -n "$ci" ] || fail "no CI line between the mpi-ci markers of README.md"
set +e
PATH=$(dirname "$mapprof"):$PATH bash -c "$ci" >ci.out 2>ci.err
rc=$?
set -e
[ -s mapprof.sarif ] || fail "the README's MPI CI line wrote no SARIF log: $(cat ci.err)"
n=$(jq '.runs[0].results | length' mapprof.sarif)
found=$(jq -r '[.runs[0].results[].properties.processes[]] | unique | join(",")' mapprof.sarif)
if [ "$n" -gt 0 ]; then
	assert_eq "$rc" 1 "exit status of the README's MPI CI line over ranks with findings"
	case $found in *"rank "*) ;; *) fail "SARIF results do not name their ranks: $found" ;; esac
else
	assert_eq "$rc" 0 "exit status of the README's MPI CI line over ranks without findings"
fi
echo "ok the README's MPI CI line: $n results, exit $rc, processes $found"
