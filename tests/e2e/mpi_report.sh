#!/usr/bin/env bash
# mpi_report.sh - mapprof-mpi (cli/mpi_main.c): 'mpirun -n N mapprof-mpi
# report DB...' divides the databases among N ranks, each analyses its share
# and rank 0 merges the parts; the merged report.json, the page's document,
# the SARIF log, the summary and the exit status must be those of the serial
# 'mapprof report DB...', for N = 1, 2, 3 and more ranks than databases.
# The databases: the 4 ranks of an MPI job (samples/mpi/mpi_ranks.c, one
# 'mapprof record' per rank) and a program with its forked child (processes
# without a rank: merged by pid), 6 in all.  Skipped (77) when Open MPI is
# missing (make test-deps installs it; then 'make' builds mapprof-mpi).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null && command -v mpicc >/dev/null ||
	skip "Open MPI is missing (apt-get install openmpi-bin libopenmpi-dev, or make test-deps)"
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
mapprof=$MAPPROF_BUILD/mapprof
mpi=$MAPPROF_BUILD/mapprof-mpi
[ -x "$mpi" ] || fail "no $mpi: 'make' builds it where mpicc is found"
dir=$(tmpdir)
cd "$dir"
mpirun=(mpirun --oversubscribe --allow-run-as-root)
if [ -n "${SANITIZE:-}" ]; then
	# Open MPI leaks what its plugins allocate in MPI_Init (LSan sees them
	# once the plugins are unloaded): each such stack passes through one
	# of its libraries, which a full unwind shows.  mapprof-mpi's own
	# allocations have none of them in their stacks and stay checked.
	printf 'leak:%s\n' libmpi.so libopen-pal.so libopen-rte.so libpmix.so libhwloc.so libevent >"$dir/ompi.supp"
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0
	export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$dir/ompi.supp:print_suppressions=0
fi
OMPI_CC=$OMPCC mpicc -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O1 \
	-Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib" "$MAPPROF_SRC/samples/mpi/mpi_ranks.c" -o mpi_ranks ||
	fail "cannot build samples/mpi/mpi_ranks.c with mpicc"
timeout 120 "${mpirun[@]}" -n 4 "$mapprof" record -o 'run.%r.db' -- ./mpi_ranks >/dev/null 2>rec.err ||
	fail "mpirun mapprof record: $(cat rec.err)"
"$mapprof" record -o run.fork.db -- "$MAPPROF_BUILD/samples/procs/fork_child" >/dev/null 2>rec.err ||
	fail "record fork_child: $(cat rec.err)"
dbs=(run.*.db)
assert_eq "${#dbs[@]}" 6 "databases recorded ($(ls))"

page_doc() {
	sed -n 's/.*<script type="application\/json" id="mapprof-data">\(.*\)<\/script>.*/\1/p' "$1"
}

# report OUT CMD...: the report of every database into OUT/ (summary, JSON,
# page, SARIF, exit status), --fail-on any: each rank with findings trips it.
report() {
	local out=$1 rc=0
	shift
	mkdir -p "$out"
	"$@" --json "$out/report.json" --html "$out/report.html" --sarif "$out/report.sarif" --fail-on any \
		"${dbs[@]}" >"$out/summary" 2>"$out/err" || rc=$?
	echo "$rc" >"$out/rc"
}
report serial "$mapprof" report
assert_eq "$(cat serial/rc)" 1 "serial report's exit status (--fail-on any over ranks with findings)"
[ "$(jq '.merged_findings | length' serial/report.json)" -ge 2 ] || fail "serial: too few findings"
jq -e '[.merged_findings[] | select(has("pids"))] | length > 0' serial/report.json >/dev/null ||
	fail "serial: no finding of the forked processes (merged by pid)"

for n in 1 2 3 8; do
	report "mpi$n" timeout 120 "${mpirun[@]}" -n "$n" "$mpi" report
	assert_eq "$(cat "mpi$n/rc")" 1 "mpirun -n $n mapprof-mpi: exit status ($(cat "mpi$n/err"))"
	assert_eq "$(jq -S -c . "mpi$n/report.json")" "$(jq -S -c . serial/report.json)" \
		"mpirun -n $n mapprof-mpi: report.json vs the serial report's"
	assert_eq "$(page_doc "mpi$n/report.html" | jq -S -c 'del(.generator)')" \
		"$(page_doc serial/report.html | jq -S -c 'del(.generator)')" "mpirun -n $n: report.html's document"
	assert_eq "$(jq -S -c '.runs[0].results' "mpi$n/report.sarif")" \
		"$(jq -S -c '.runs[0].results' serial/report.sarif)" "mpirun -n $n: the SARIF log's results"
	cmp -s "mpi$n/summary" serial/summary || fail "mpirun -n $n: summary differs: $(diff serial/summary "mpi$n/summary")"
	assert_eq "$(grep -c -- '--fail-on any' "mpi$n/err")" "$(grep -c -- '--fail-on any' serial/err)" \
		"mpirun -n $n: --fail-on lines"
	echo "ok mpirun -n $n mapprof-mpi report: the serial report's findings ($(jq '.merged_findings | length' \
		"mpi$n/report.json") merged over ${#dbs[@]} databases)"
done

# A directory stands for its *.db files (a job of thousands of ranks is more
# than mpirun passes on to its ranks: 'Argument list too long' at 10,000
# here); journals, dot files and directories named *.db are not databases.
mkdir job && cp "${dbs[@]}" job/ && touch job/run.0.db-journal job/.hidden.db && mkdir job/sub.db
jobdoc() { jq -S -c '{merged_findings, processes: [.processes[] | del(.database, .report)]}' "$1"; }
"$mapprof" report -q --json job.serial.json --no-html job >/dev/null 2>job.err || fail "report job/: $(cat job.err)"
timeout 120 "${mpirun[@]}" -n 2 "$mpi" report -q --json job.mpi.json --no-html job >/dev/null 2>job.err ||
	fail "mpirun -n 2 mapprof-mpi report job/: $(cat job.err)"
assert_eq "$(jq '.processes | length' job.mpi.json)" 6 "processes of job/ (mapprof-mpi)"
assert_eq "$(jobdoc job.mpi.json)" "$(jobdoc serial/report.json)" "mapprof-mpi over job/ vs the serial report of the files"
assert_eq "$(jobdoc job.serial.json)" "$(jobdoc serial/report.json)" "mapprof report job/ vs the serial report of the files"
mkdir nodb
rc=0
timeout 120 "${mpirun[@]}" -n 2 "$mpi" report nodb >/dev/null 2>nodb.err || rc=$?
assert_eq "$rc" 3 "mapprof-mpi over a directory without databases: exit status"
assert_eq "$(grep -c "directory 'nodb' holds no database" nodb.err)" 1 "messages for nodb/ (rank 0 says it once)"
echo "ok a directory of databases: the same merged report, serially and over 2 ranks"

# A database that cannot be reported: 3 and no report, as serially.
printf 'not a database' >run.bad.db
dbs+=(run.bad.db)
report serial_bad "$mapprof" report
report mpi_bad timeout 120 "${mpirun[@]}" -n 3 "$mpi" report
assert_eq "$(cat serial_bad/rc)" 3 "serial report with a damaged database"
assert_eq "$(cat mpi_bad/rc)" 3 "mapprof-mpi with a damaged database ($(cat mpi_bad/err))"
grep -q "mapprof: error: 'run.bad.db'" mpi_bad/err || fail "mapprof-mpi: no error naming it: $(cat mpi_bad/err)"
[ ! -e mpi_bad/report.json ] || fail "mapprof-mpi wrote report.json over a damaged database"
echo "ok mapprof-mpi with a damaged database: exit 3, nothing written"

# record --analyse: each rank's database analysed as its recording ends;
# 'mapprof-mpi report --stored' then merges the stored findings only.  Each
# stored finding's occurrences are marked (+1000) after the analysis: the
# stored merge must show the mark (it read the rows, analysed nothing), and
# otherwise the findings of the serial report made before.
mkdir analysed && cd analysed
timeout 120 "${mpirun[@]}" -n 4 "$mapprof" record --analyse -o 'a.%r.db' -- ../mpi_ranks >/dev/null 2>rec.err ||
	fail "mpirun mapprof record --analyse: $(cat rec.err)"
# (the ranks' lines may interleave)
assert_eq "$(grep -o "stored the findings in 'a\.[0-3]\.db'" rec.err | sort -u | wc -l)" 4 \
	"record --analyse: $(cat rec.err)"
adbs=(a.*.db)
"$mapprof" report -q --json before.json --no-html "${adbs[@]}" 2>/dev/null || fail "serial report of a.*.db"
[ "$(jq '.merged_findings | length' before.json)" -gt 0 ] || fail "record --analyse: no findings"
for d in "${adbs[@]}"; do
	q "$d" "UPDATE finding_raw SET occurrences = occurrences + 1000" >/dev/null
done
timeout 120 "${mpirun[@]}" -n 3 "$mpi" report --stored -q --json stored.json --no-html "${adbs[@]}" 2>err ||
	fail "mapprof-mpi report --stored: $(cat err)"
assert_eq "$(jq -S -c '[.merged_findings[] | .each.occurrences |= map(. - 1000) | del(.occurrences,
		.occurrences_min, .occurrences_max, .per_process.occurrences)]' stored.json)" \
	"$(jq -S -c '[.merged_findings[] | del(.occurrences, .occurrences_min, .occurrences_max,
		.per_process.occurrences)]' before.json)" "mapprof-mpi --stored: the stored findings, marked"
rc=0
timeout 120 "${mpirun[@]}" -n 2 "$mpi" report --stored --fail-on any -q --no-html --no-json "${adbs[@]}" \
	2>err || rc=$?
assert_eq "$rc" 2 "--stored with --fail-on"
echo "ok mpirun mapprof record --analyse, then mapprof-mpi report --stored: $(jq '.merged_findings | length' \
	stored.json) findings from the stored rows alone"
