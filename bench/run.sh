#!/usr/bin/env bash
# bench/run.sh - what recording costs, measured on this machine (make bench).
#
# Every sample plus a transfer-heavy and a launch-heavy microbenchmark run
# natively and under 'mapprof record', alternating, N times each
# (BENCH_RUNS, default 31).  Per program: median native and recorded wall
# time and their ratio; then the geometric mean of the ratios, with a 95%
# bootstrap interval over the runs (bench/bootstrap.c).  Ratios of runs on
# the same machine in the same session, not absolute times.
set -euo pipefail
B=${1:-build}
# glibc's dynamic mmap threshold decides whether the runtime's per-map device
# buffers (host offload mallocs them) page-fault on every iteration; recording
# perturbs the heap enough to flip that decision, which made transfer_heavy
# look 20% *faster* recorded than native.  A fixed threshold on both sides
# measures the collector, not the allocator.
export GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.mmap_threshold=67108864}
N=${BENCH_RUNS:-31}
mapprof=$B/mapprof
out=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT
# Every iteration's times, kept after the bench for a second look.
runs=$B/bench/runs.txt
: >"$runs"

# Microseconds since the epoch into variable $1, from bash itself: no
# process (not even a subshell) between runs.
stamp() { local t=${EPOCHREALTIME/[.,]/}; printf -v "$1" '%d' "$((10#$t))"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# time_runs NAME ARGS...: runs the program natively and recorded, alternating,
# N times, and prints medians "native_ns recorded_ns native_cmd_ns recorded_cmd_ns".
# Each iteration's "NAME native_ns recorded_ns" goes to $runs_to, or $runs
# (for the interval).  With $tool set, it is the collector 'record' loads.
# native_ns/recorded_ns: the program alone, start to exit, timed the same way
# on both sides (bench/timeit natively; 'mapprof record' stores its own
# measurement in run.wall_ns).  *_cmd_ns: the whole command from the shell:
# bench/timeit, or 'mapprof record' including creating the database before
# and expanding the spool after the program.
#
# Nothing else runs between the timed runs: an iteration is one native and
# one recorded run (no extra run from the shell, no sqlite3, no date), and
# the databases are read after the loop.
time_runs() {
	local name=$1 nat=() rec=() natc=() recc=() i
	shift
	for ((i = 0; i < N; i++)); do
		# ABBA: which side runs first alternates, so that what a run inherits
		# from the one before it (caches, an idle or busy core) falls on both.
		if ((i % 2 == 0)); then
			run_native "$@"; run_recorded "$i" "$@"
		else
			run_recorded "$i" "$@"; run_native "$@"
		fi
	done
	for ((i = 0; i < N; i++)); do
		rec+=("$(sqlite3 "$out/run-$i.db" 'SELECT wall_ns FROM run')")
		rm -f "$out/run-$i.db"
		echo "$name ${nat[i]} ${rec[i]}" >>"${runs_to:-$runs}"
	done
	echo "$(printf '%s\n' "${nat[@]}" | median) $(printf '%s\n' "${rec[@]}" | median)" \
		"$(printf '%s\n' "${natc[@]}" | median) $(printf '%s\n' "${recc[@]}" | median)"
}
# One native run: the program's time from bench/timeit, the command's from the shell.
run_native() {
	local w t0 t1
	stamp t0
	"$B/bench/timeit" "$out/t" "$@" >/dev/null
	stamp t1
	natc+=($(( (t1 - t0) * 1000 )))
	read -r w _ <"$out/t"; nat+=("$w")
}
# run_recorded I ARGS...: one recorded run into run-I.db; the command's time from the shell.
run_recorded() {
	local i=$1 t0 t1
	shift
	stamp t0
	MAPPROF_COLLECTOR=${tool:-${MAPPROF_COLLECTOR:-}} \
		"$mapprof" record -f -o "$out/run-$i.db" -- "$@" >/dev/null 2>"$out/err" ||
		{ cat "$out/err" >&2; exit 1; }
	stamp t1
	recc+=($(( (t1 - t0) * 1000 )))
}

echo "mapprof bench: $(nproc) cores, $(uname -r), $N runs each, $(date -u +%Y-%m-%dT%H:%MZ), GLIBC_TUNABLES=$GLIBC_TUNABLES"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
printf '%-20s %10s %12s %9s   %11s %11s %9s\n' program native_ms recorded_ms slowdown \
	native_cmd recorded_cmd slowdown
ratios=()
cratios=()
ms() { awk -v v="$1" 'BEGIN { printf "%.2f", v / 1e6 }'; }
ratio_of() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# row NAME NATIVE RECORDED NATIVE_CMD RECORDED_CMD: a table row; the ratios go to $ratio, $cratio.
row() {
	ratio=$(ratio_of "$3" "$2")
	cratio=$(ratio_of "$5" "$4")
	printf '%-20s %10s %12s %9s   %11s %11s %9s\n' "$1" "$(ms "$2")" "$(ms "$3")" "$ratio" \
		"$(ms "$4")" "$(ms "$5")" "$cratio"
}
geomean() { awk '{ s += log($1); n++ } END { printf "%.3f", exp(s / n) }'; }
# interval RUNS_FILE: the 95% bootstrap interval of its geometric mean, "LOW-HIGH".
interval() { "$B/bench/bootstrap" <"$1" | tr ' ' -; }
# The programs of the geometric mean: every sample, then launch_heavy.
progs=()
for prog in "$B"/samples/* "$B/bench/launch_heavy"; do
	[ -f "$prog" ] && [ -x "$prog" ] || continue
	case $prog in *.so) continue ;; esac
	progs+=("$prog")
done
for prog in "${progs[@]}"; do
	read -r nat rec natc recc < <(time_runs "$(basename "$prog")" "$prog")
	row "$(basename "$prog")" "$nat" "$rec" "$natc" "$recc"
	ratios+=("$ratio")
	cratios+=("$cratio")
done
geo=$(printf '%s\n' "${ratios[@]}" | geomean)
cgeo=$(printf '%s\n' "${cratios[@]}" | geomean)
geo_interval=$(interval "$runs")
read -r nat rec natc recc < <(time_runs transfer_heavy "$B/bench/transfer_heavy")
row transfer_heavy "$nat" "$rec" "$natc" "$recc"
echo
echo "geometric mean slowdown of the program (samples + launch_heavy): $geo (95% bootstrap interval $geo_interval)"
echo "transfer_heavy slowdown of the program: $ratio"
echo "geometric mean slowdown of the whole 'mapprof record' command: $cgeo (transfer_heavy $cratio)"
echo

echo "every run's times: $runs"
echo

# The floor: the same runs with a tool that asks for the same callbacks and
# records nothing (bench/empty_tool.c), under 'mapprof record'.  What the
# runtime's OMPT paths and being started by 'record' cost; the collector's
# own share is the difference.
floor_runs=$out/floor-runs
floor=()
for prog in "${progs[@]}"; do
	read -r nat rec _ < <(tool=$B/bench/libempty-tool.so runs_to=$floor_runs \
		time_runs "$(basename "$prog")" "$prog")
	floor+=("$(ratio_of "$rec" "$nat")")
done
echo "the same with an OMPT tool that records nothing (the floor): geometric mean" \
	"$(printf '%s\n' "${floor[@]}" | geomean) (95% bootstrap interval $(interval "$floor_runs"))," \
	"launch_heavy ${floor[-1]}"
echo

"$B/bench/hash_bench" 2>/dev/null
"$B/bench/wtrack_bench"

# Per-event cost and database size: launch_heavy with R regions (6 events each).
events_run() {
	local regions=$1
	"$mapprof" record -f -o "$out/ev.db" -- "$B/bench/launch_heavy" "$regions" >/dev/null 2>&1
	sqlite3 "$out/ev.db" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)"
}
regions=20000
read -r nat rec natc recc < <(time_runs "launch_heavy_$regions" "$B/bench/launch_heavy" "$regions")
events=$(events_run "$regions")
echo "collector cost per event in the program (launch_heavy, $events events, 8-byte transfers): $(( (rec - nat) / events )) ns"
echo "expanding the spool after the program, per event (whole command minus program, minus native): $(( (recc - natc - (rec - nat)) / events )) ns"
echo "database bytes per event: $(( $(stat -c %s "$out/ev.db") / events ))"

# Peak RSS added by the collector on a run of about one million events: the
# program's own ru_maxrss on both sides.
regions=170000
"$B/bench/timeit" "$out/t" "$B/bench/launch_heavy" "$regions" >/dev/null
read -r _ nat_kb <"$out/t"
rec_cmd_kb=$(/usr/bin/time -f %M "$mapprof" record -f -o "$out/m.db" -- "$B/bench/launch_heavy" "$regions" 2>&1 >/dev/null | tail -1)
rec_kb=$(sqlite3 "$out/m.db" "SELECT peak_rss_kb FROM run")
events=$(sqlite3 "$out/m.db" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)")
echo "peak RSS added by the collector ($events events): $(( rec_kb - nat_kb )) KiB (native $((nat_kb / 1024)) MiB, recorded $((rec_kb / 1024)) MiB; the whole command $((rec_cmd_kb / 1024)) MiB)"

# record's own memory on a run of four million events (launch_heavy, 6 a
# region), which must stay bounded whatever the run's length (<= 64 MiB):
# expanding the spool, measured alone as 'mapprof recover' does it on the
# spool the collector wrote, and the whole 'mapprof record' command (whose
# peak is the larger of record's and the program's).
regions=666667
abs_b=$(cd "$B" && pwd)
MAPPROF_SPOOL=$out/r4.db-spool OMP_TOOL_LIBRARIES=$abs_b/libmapprof-collector.so \
	"$B/bench/launch_heavy" "$regions" >/dev/null 2>&1
exp_kb=$(/usr/bin/time -f %M "$mapprof" recover -o "$out/r4.db" "$out/r4.db-spool" 2>&1 >/dev/null | tail -1)
events=$(sqlite3 "$out/r4.db" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)")
rm -f "$out/r4.db"
rec_cmd_kb=$(/usr/bin/time -f %M "$mapprof" record -f -o "$out/r4.db" -- "$B/bench/launch_heavy" "$regions" 2>&1 >/dev/null | tail -1)
prog_kb=$(sqlite3 "$out/r4.db" "SELECT peak_rss_kb FROM run")
rm -f "$out/r4.db"
echo "record's peak RSS on a $events-event run: $((exp_kb / 1024)) MiB expanding the spool (the whole command $((rec_cmd_kb / 1024)) MiB, the program alone $((prog_kb / 1024)) MiB)"

# Report on a synthetic run of ten million events (9 per iteration).
iters=${BENCH_ITERS:-1111111}
bench/gen_events.sh "$out/big.db" "$iters"
events=$(sqlite3 "$out/big.db" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw)")
/usr/bin/time -f '%e %M' -o "$out/rt" "$mapprof" report -q --no-html --json "$out/big.json" "$out/big.db" >/dev/null
read -r secs kb <"$out/rt"
echo "report of $events events: ${secs} s, peak RSS $((kb / 1024)) MiB"
