#!/usr/bin/env bash
# 'mapprof run' reports every process it recorded (issue #26 item 5): an MPI
# job launched under it (mpirun does not offload, its 3 ranks do) gives one
# report over the 3 databases, ranks in order; a program that forks and
# execs gives one over its 2.  The exit status is the report's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null && command -v mpicc >/dev/null ||
	skip "Open MPI is missing (apt-get install openmpi-bin libopenmpi-dev, or make test-deps)"
m=$MAPPROF_BUILD/mapprof
dir=$(tmpdir)
cd "$dir"
OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
	-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
	fail "cannot build samples/mpi/mpi_ranks.c with mpicc"

timeout 180 "$m" run -o job -- mpirun --oversubscribe --allow-run-as-root -n 3 ./mpi_ranks >out 2>err ||
	fail "mapprof run -- mpirun -n 3 failed: $(cat err)"
[ -s report.json ] || fail "no report.json: $(cat err)"
assert_eq "$(jq '.processes | length' report.json)" 3 "processes in the report of 'run -- mpirun -n 3'"
assert_eq "$(jq -c '[.processes[].rank]' report.json)" "[0,1,2]" "the ranks, in order"
grep -q "^3 processes" out || fail "the summary does not cover the 3 processes: $(head -5 out)"
assert_eq "$(ls job*.db | wc -l)" 3 "databases written (none for mpirun itself)"

mkdir fork && cd fork
"$m" run -- "$MAPPROF_BUILD/samples/procs/exec_chain" >out 2>err || fail "mapprof run -- exec_chain: $(cat err)"
assert_eq "$(jq '.processes | length' report.json)" 2 "processes in the report of a program that execs"
echo "ok: run reports every process it recorded (3 MPI ranks; a program and the one it exec'd)"
