#!/usr/bin/env bash
# bench/run.sh - what recording costs, measured on this machine (make bench).
#
# usage: bench/run.sh [BUILD] [all|real|check]
#
# Every sample plus a transfer-heavy and a launch-heavy microbenchmark run
# natively and under 'mapprof record', alternating, N times each
# (BENCH_RUNS, default 31).  Per program: median native and recorded wall
# time and their ratio; then the geometric mean of the ratios, with a 95%
# bootstrap interval over the runs (bench/bootstrap.c).  Ratios of runs on
# the same machine in the same session, not absolute times.
#
# Then the realistic suite (bench/real/, 'real' runs only that): programs
# shaped like applications, naive and fixed, each run natively, recorded,
# with the empty tool (the floor) and with the hash floor (a tool that hashes
# every transferred byte and keeps its events in memory, bench/hash_floor.c)
# in rotating order, BENCH_REAL_RUNS times (default 8), and more for a short
# program: whole rounds of the four orders while its runs took under
# BENCH_REAL_MIN_S seconds (default 10; 0: exactly BENCH_REAL_RUNS), up to
# BENCH_REAL_RUNS_MAX (default 32), since a run's noise is milliseconds
# whatever its length; per program the
# median of per-iteration ratios with their intervals, mapprof over the hash
# floor, the bytes hashed and the collector's CPU time.
set -euo pipefail
. "$(dirname "$0")/rounds.sh"
B=${1:-build}
what=${2:-all}
case $what in all | real | check) ;; *) echo "usage: bench/run.sh [BUILD] [all|real|check]" >&2; exit 2 ;; esac
# glibc's dynamic mmap threshold decides whether the runtime's per-map device
# buffers (host offload mallocs them) page-fault on every iteration; recording
# perturbs the heap enough to flip that decision, which made transfer_heavy
# look 20% *faster* recorded than native.  The samples and microbenchmarks
# keep a fixed threshold on both sides, so that their numbers stay
# comparable with earlier benches; the realistic suite runs as users do,
# without allocator tunables (BENCH_TUNABLES=1 adds a second pass with the
# fixed threshold).  A GLIBC_TUNABLES set by the caller applies to all.
user_tunables=${GLIBC_TUNABLES-}
fixed_tunables=glibc.malloc.mmap_threshold=67108864
# use_tunables VALUE: GLIBC_TUNABLES for what runs next ("": none).
use_tunables() {
	if [ -n "$1" ]; then export GLIBC_TUNABLES=$1; else unset GLIBC_TUNABLES; fi
}
N=${BENCH_RUNS:-31}
NR=${BENCH_REAL_RUNS:-8}
NR_MIN_S=${BENCH_REAL_MIN_S:-10}
NR_MAX=${BENCH_REAL_RUNS_MAX:-32}
for v in NR NR_MIN_S NR_MAX; do
	[[ ${!v} =~ ^[0-9]+$ ]] ||
		{ echo "bench: BENCH_REAL_RUNS, BENCH_REAL_MIN_S and BENCH_REAL_RUNS_MAX take whole numbers, not '${!v}'" >&2; exit 2; }
done
((NR >= 1)) || { echo "bench: BENCH_REAL_RUNS must be 1 or more" >&2; exit 2; }
((NR_MAX >= NR)) || NR_MAX=$NR
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
	local name=$1 nat=() rec=() natc=() natcpu=() recc=() i
	shift
	for ((i = 0; i < N; i++)); do
		# ABBA: which side runs first alternates, so that what a run inherits
		# from the one before it (caches, an idle or busy core) falls on both.
		if ((i % 2 == 0)); then
			run_native "$@"; run_recorded "$out/run-$i.db" "$@"
		else
			run_recorded "$out/run-$i.db" "$@"; run_native "$@"
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
# One native run: the program's time and CPU time (user + sys) from
# bench/timeit, the command's time from the shell.
run_native() {
	local w u s t0 t1
	stamp t0
	"$B/bench/timeit" "$out/t" "$@" >/dev/null 2>"$out/err" ||
		{ echo "bench: '$*' failed natively (exit $?)" >&2; cat "$out/err" >&2; exit 1; }
	stamp t1
	natc+=($(( (t1 - t0) * 1000 )))
	read -r w _ u s <"$out/t"; nat+=("$w"); natcpu+=($((u + s)))
}
# run_recorded DB ARGS...: one recorded run into DB; the command's time from the shell.
run_recorded() {
	local db=$1 t0 t1
	shift
	stamp t0
	# shellcheck disable=SC2086 # rec_flags are words ('--check')
	MAPPROF_COLLECTOR=${tool:-${MAPPROF_COLLECTOR:-}} \
		"$mapprof" record ${rec_flags:-} -f -o "$db" -- "$@" >/dev/null 2>"$out/err" ||
		{ echo "bench: '$*' failed under 'mapprof record'${tool:+ with $tool}" >&2; cat "$out/err" >&2; exit 1; }
	stamp t1
	recc+=($(( (t1 - t0) * 1000 )))
}

# --- the realistic suite (bench/real/) -----------------------------------------
# real_runs NAME PROG: PROG natively (n), recorded (r), with the empty tool
# (f, the floor) and with the hash floor (h), NR times each, the four sides
# in rotating order: the four orders below are a Williams square (each side
# runs once in each position, and right after each other side exactly once),
# so that over four iterations what a run inherits from the one before it
# falls on every side alike.  As in time_runs, an iteration is its four runs
# and nothing else; the databases are read after the loop.  Appends one line
# per iteration to $real_runs: "NAME NATIVE_NS RECORDED_NS FLOOR_NS
# NATIVE_CPU_NS RECORDED_CPU_NS HASH_BYTES HASH_REUSED_BYTES BACK_BYTES
# HASH_FLOOR_NS" (CPU = user + sys of the program; n/a where the database
# has no 'stats' view; BACK_BYTES: what transfers from the device brought
# into host memory, new bytes that no reuse can spare hashing).
real_orders=(nrhf rfnh fhrn hnfr)
real_runs() {
	local name=$1 prog=$2 nat=() natc=() natcpu=() recc=() i k order stats rw fw hw hb hr cpu back t_prog
	t_prog=$EPOCHREALTIME
	for ((i = 0; ; i++)); do
		more_rounds "$i" "$t_prog" "$NR" "$NR_MIN_S" "$NR_MAX" || break
		order=${real_orders[i % 4]}
		for ((k = 0; k < 4; k++)); do
			case ${order:k:1} in
			n) run_native "$prog" ;;
			r) tool='' run_recorded "$out/real-r-$i.db" "$prog" ;;
			f) tool=$B/bench/libempty-tool.so run_recorded "$out/real-f-$i.db" "$prog" ;;
			h) tool=$B/bench/libhash-floor.so run_recorded "$out/real-h-$i.db" "$prog" ;;
			esac
		done
	done
	local rounds=$i
	stats=$(sqlite3 "$out/real-r-0.db" "SELECT COUNT(*) FROM sqlite_master WHERE name = 'stats'")
	for ((i = 0; i < rounds; i++)); do
		if [ "$stats" = 1 ]; then
			read -r rw hb hr cpu back < <(sqlite3 -separator ' ' -nullvalue n/a "$out/real-r-$i.db" \
				"SELECT (SELECT wall_ns FROM run), $(stat_sql hash_bytes), $(stat_sql hash_reused_bytes),
				        $(stat_sql program_user_ns) + $(stat_sql program_sys_ns),
				        (SELECT TOTAL(bytes) FROM data_ops WHERE op = 'from_device')")
		else
			rw=$(sqlite3 "$out/real-r-$i.db" 'SELECT wall_ns FROM run') hb=n/a hr=n/a cpu=n/a back=n/a
		fi
		fw=$(sqlite3 "$out/real-f-$i.db" 'SELECT wall_ns FROM run')
		hw=$(sqlite3 "$out/real-h-$i.db" 'SELECT wall_ns FROM run')
		rm -f "$out/real-r-$i.db" "$out/real-f-$i.db" "$out/real-h-$i.db"
		echo "$name ${nat[i]} $rw $fw ${natcpu[i]} $cpu $hb $hr ${back%.0} $hw" >>"$real_runs"
	done
}
stat_sql() { echo "(SELECT SUM(value) FROM stats WHERE name = '$1')"; }

# real_row NAME: NAME's row of the realistic suite from its lines in
# $real_runs: median native time, the median ratios with their intervals,
# their difference, recorded over the hash floor (the median of the
# per-iteration ratios, paired like the others, and its interval), the bytes
# hashed and reused (medians), and the median of the per-iteration
# differences of CPU time, recorded minus native.
real_row() {
	local name=$1 r f h
	r=$(awk -v p="$1" '$1 == p { print $1, $2, $3 }' "$real_runs" | "$B/bench/bootstrap" -r -e | head -n 1)
	f=$(awk -v p="$1" '$1 == p { print $1, $2, $4 }' "$real_runs" | "$B/bench/bootstrap" -r -e | head -n 1)
	h=$(awk -v p="$1" '$1 == p { print $1, $10, $3 }' "$real_runs" | "$B/bench/bootstrap" -r -e | head -n 1)
	awk -v p="$1" -v r="$r" -v f="$f" -v h="$h" '
	function med(list,   v, n, i, j, x) {
		n = split(list, v, " ")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] + 0 > v[j] + 0; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function mib(list, na) { return na ? "n/a" : sprintf("%.1f", med(list) / 1048576) }
	$1 == p {
		nat = nat " " $2
		if ($6 == "n/a") cpu_na = 1; else cpu = cpu " " ($6 - $5)
		if ($7 == "n/a") hb_na = 1; else hb = hb " " $7
		if ($8 == "n/a") hr_na = 1; else hr = hr " " $8
		if ($9 == "" || $9 == "n/a") bk_na = 1; else bk = bk " " $9
	}
	END {
		split(r, rr, " ")
		split(f, ff, " ")
		split(h, hh, " ")
		printf "%-14s %10.2f  %-22s %-22s %+9.3f  %-22s %11s %11s %9s %11s %6d\n", p, med(nat) / 1e6,
			sprintf("%s (%s-%s)", rr[2], rr[3], rr[4]), sprintf("%s (%s-%s)", ff[2], ff[3], ff[4]),
			rr[2] - ff[2], sprintf("%s (%s-%s)", hh[2], hh[3], hh[4]),
			mib(hb, hb_na), mib(hr, hr_na), mib(bk, bk_na),
			cpu_na ? "n/a" : sprintf("%+.1fms", med(cpu) / 1e6), split(nat, nn, " ")
	}' "$real_runs"
}

# real_suite LABEL: every program of bench/real/, naive then fixed, through
# real_runs; a table row each, then the suite's geometric means.  The runs
# stay in $B/bench/real-runs.txt (LABEL default) or real-runs-LABEL.txt.
real_suite() {
	local label=$1 progs=() p t0 t1 load
	real_runs=$B/bench/real-runs.txt
	[ "$label" = default ] || real_runs=$B/bench/real-runs-$label.txt
	: >"$real_runs"
	for p in "$B"/bench/real/*.naive; do
		[ -x "$p" ] && [ -x "${p%.naive}.fixed" ] && progs+=("$p" "${p%.naive}.fixed")
	done
	if ((${#progs[@]} == 0)); then
		echo "realistic suite: not built (make bench-real)"
		return
	fi
	stamp t0
	# The load average before and after: other processes on the cores move
	# single runs by more than the collector does, which the intervals show
	# only in part.
	read -r load _ </proc/loadavg
	echo "realistic suite (bench/real/): $NR runs each, more up to $NR_MAX while a program's took under ${NR_MIN_S}s," \
		"native, recorded, floor and hash floor in rotating order," \
		"GLIBC_TUNABLES=${GLIBC_TUNABLES:-unset}, OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, load average $load"
	echo
	printf '%-14s %10s  %-22s %-22s %9s  %-22s %11s %11s %9s %11s %6s\n' program native_ms \
		'recorded/native (95%)' 'floor/native (95%)' rec-floor 'recorded/hash-floor' \
		hashed_MiB reused_MiB back_MiB collector_cpu runs
	for p in "${progs[@]}"; do
		real_runs "$(basename "$p")" "$p"
		real_row "$(basename "$p")" | tee -a "$out/real-table"
	done
	awk '{ print $1, $2, $3 }' "$real_runs" | "$B/bench/bootstrap" -r -e >"$out/real-rec"
	awk '{ print $1, $2, $4 }' "$real_runs" | "$B/bench/bootstrap" -r -e >"$out/real-floor"
	awk '{ print $1, $10, $3 }' "$real_runs" | "$B/bench/bootstrap" -r -e >"$out/real-hash"
	stamp t1
	echo
	read -r _ g lo hi < <(tail -n 1 "$out/real-rec")
	echo "geometric mean over the realistic suite (${#progs[@]} programs), recorded/native: $g" \
		"(95% bootstrap interval $lo-$hi; target <= 1.05)"
	read -r _ g lo hi < <(tail -n 1 "$out/real-floor")
	echo "the same with an OMPT tool that records nothing (the floor), floor/native: $g (95% bootstrap interval $lo-$hi)"
	read -r _ g lo hi < <(tail -n 1 "$out/real-hash")
	echo "recorded over the hash-everything floor (bench/hash_floor.c), recorded/hash-floor: $g" \
		"(95% bootstrap interval $lo-$hi; target <= 1.00, <= 1.02 where no reuse applies)"
	# The per-program targets, from the rows above (median ratios).
	awk '$3 + 0 > 1.10 { over = over sprintf(" %s %.3f", $1, $3) }
	     $7 + 0 > 0.05 { floor = floor sprintf(" %s %+.3f", $1, $7) }
	     $8 + 0 > 1.00 { hash = hash sprintf(" %s %.3f", $1, $8) }
	     END {
		printf "per program (targets: recorded/native <= 1.10, and at most 0.05 above the floor): above 1.10:%s; more than 0.05 above the floor:%s\n",
			over == "" ? " none" : over, floor == "" ? " none" : floor
		printf "per program, recorded/hash-floor above 1.00 (issue 29):%s\n", hash == "" ? " none" : hash
	     }' "$out/real-table"
	rm -f "$out/real-table"
	read -r load _ </proc/loadavg
	echo "every run's times: $real_runs ($(( (t1 - t0) / 1000000 )) s; load average $load at the end)"
}

# --- what --check costs (docs/checks.md) ----------------------------------------
# check_suite: every program of bench/real/, naive and fixed, natively (n),
# recorded (r) and recorded with --check (c), in rotating order, NR times
# each; per program the median of per-iteration ratios with their 95%
# intervals (recorded/native, checked/native, checked/recorded), then the
# geometric means.  The runs stay in $B/bench/check-runs.txt.
check_orders=(nrc rcn cnr)
check_suite() {
	local check_runs=$B/bench/check-runs.txt progs=() p name i k order rc cc
	: >"$check_runs"
	for p in "$B"/bench/real/*.naive; do
		[ -x "$p" ] && [ -x "${p%.naive}.fixed" ] && progs+=("$p" "${p%.naive}.fixed")
	done
	[ ${#progs[@]} -gt 0 ] || { echo "--check cost: the realistic suite is not built (make bench-real)"; return; }
	echo "--check on the realistic suite: $NR runs each, native, recorded and recorded --check in rotating order"
	printf '%-14s %-22s %-22s %-22s\n' program 'recorded/native' 'checked/native' 'checked/recorded'
	for p in "${progs[@]}"; do
		name=$(basename "$p")
		local nat=() natc=() natcpu=() recc=()
		for ((i = 0; i < NR; i++)); do
			order=${check_orders[i % 3]}
			for ((k = 0; k < 3; k++)); do
				case ${order:k:1} in
				n) run_native "$p" ;;
				r) tool='' run_recorded "$out/chk-r-$i.db" "$p" ;;
				c) tool='' rec_flags=--check run_recorded "$out/chk-c-$i.db" "$p" ;;
				esac
			done
		done
		for ((i = 0; i < NR; i++)); do
			rc=$(sqlite3 "$out/chk-r-$i.db" 'SELECT wall_ns FROM run')
			cc=$(sqlite3 "$out/chk-c-$i.db" 'SELECT wall_ns FROM run')
			rm -f "$out/chk-r-$i.db" "$out/chk-c-$i.db"
			echo "$name ${nat[i]} $rc $cc" >>"$check_runs"
		done
		awk -v p="$name" '$1 == p { print $1, $2, $3 }' "$check_runs" | "$B/bench/bootstrap" -r -e | head -n 1 >"$out/chk-a"
		awk -v p="$name" '$1 == p { print $1, $2, $4 }' "$check_runs" | "$B/bench/bootstrap" -r -e | head -n 1 >"$out/chk-b"
		awk -v p="$name" '$1 == p { print $1, $3, $4 }' "$check_runs" | "$B/bench/bootstrap" -r -e | head -n 1 >"$out/chk-c"
		paste -d ' ' "$out/chk-a" "$out/chk-b" "$out/chk-c" |
			awk -v p="$name" '{ printf "%-14s %-22s %-22s %-22s\n", p, sprintf("%s (%s-%s)", $2, $3, $4),
				sprintf("%s (%s-%s)", $6, $7, $8), sprintf("%s (%s-%s)", $10, $11, $12) }'
	done
	read -r _ g lo hi < <(awk '{ print $1, $2, $3 }' "$check_runs" | "$B/bench/bootstrap" -r -e | tail -n 1)
	echo "geometric mean, recorded/native: $g (95% bootstrap interval $lo-$hi)"
	read -r _ g lo hi < <(awk '{ print $1, $2, $4 }' "$check_runs" | "$B/bench/bootstrap" -r -e | tail -n 1)
	echo "geometric mean, recorded --check/native: $g (95% bootstrap interval $lo-$hi)"
	read -r _ g lo hi < <(awk '{ print $1, $3, $4 }' "$check_runs" | "$B/bench/bootstrap" -r -e | tail -n 1)
	echo "geometric mean, recorded --check/recorded: $g (95% bootstrap interval $lo-$hi)"
	echo "every run's times: $check_runs"
}

# The realistic suite as users run it (no allocator tunables unless the
# caller set some), then with BENCH_TUNABLES=1 again with the fixed threshold.
real_suites() {
	use_tunables "$user_tunables"
	real_suite default
	if [ "${BENCH_TUNABLES:-0}" = 1 ] && [ -z "$user_tunables" ]; then
		echo
		use_tunables "$fixed_tunables"
		real_suite tunables
	fi
}
if [ "$what" = real ]; then
	echo "mapprof bench: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
	echo
	real_suites
	exit 0
fi
if [ "$what" = check ]; then
	echo "mapprof bench: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
	use_tunables "$user_tunables"
	check_suite
	exit 0
fi

use_tunables "${user_tunables:-$fixed_tunables}"

echo "mapprof bench: $(nproc) cores, $(uname -r), $N runs each, $(date -u +%Y-%m-%dT%H:%MZ)"
echo "samples and microbenchmarks: GLIBC_TUNABLES=$GLIBC_TUNABLES (a fixed mmap threshold, as in earlier benches)"
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

# Recorded over the hash floor (issue 29: at most 1.00, 1.02 where no reuse
# applies), for the samples and the microbenchmarks as for bench/real/: the
# two 'mapprof record' commands alternating (ABBA), BENCH_HASH_RUNS times
# (default 9), the program's wall time from each database; per program the
# median of the per-iteration ratios and its 95% bootstrap interval.
hash_runs=$out/hash-runs
NH=${BENCH_HASH_RUNS:-9}
: >"$hash_runs"
for prog in "${progs[@]}" "$B/bench/transfer_heavy"; do
	for ((i = 0; i < NH; i++)); do
		if ((i % 2 == 0)); then
			tool='' run_recorded "$out/hr-r-$i.db" "$prog"
			tool=$B/bench/libhash-floor.so run_recorded "$out/hr-h-$i.db" "$prog"
		else
			tool=$B/bench/libhash-floor.so run_recorded "$out/hr-h-$i.db" "$prog"
			tool='' run_recorded "$out/hr-r-$i.db" "$prog"
		fi
	done
	for ((i = 0; i < NH; i++)); do
		echo "$(basename "$prog") $(sqlite3 "$out/hr-h-$i.db" 'SELECT wall_ns FROM run')" \
			"$(sqlite3 "$out/hr-r-$i.db" 'SELECT wall_ns FROM run')" >>"$hash_runs"
		rm -f "$out/hr-r-$i.db" "$out/hr-h-$i.db"
	done
done
read -r load _ </proc/loadavg
echo "recorded over the hash-everything floor (bench/hash_floor.c), $NH runs each, median of paired ratios" \
	"(95% interval; target <= 1.00, <= 1.02 where no reuse applies), load average $load:"
"$B/bench/bootstrap" -r -e <"$hash_runs" | awk '{ printf "  %-20s %6.3f (%s-%s)\n", $1, $2, $3, $4 }'
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
read -r _ nat_kb _ <"$out/t"
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
# The same run as a Perfetto protobuf trace (report stored its findings: arrows too).
/usr/bin/time -f '%e %M' -o "$out/tt" "$mapprof" trace -o "$out/big.pftrace" "$out/big.db" 2>/dev/null
read -r secs kb <"$out/tt"
echo "trace (.pftrace) of $events events: ${secs} s, peak RSS $((kb / 1024)) MiB, $(( $(stat -c %s "$out/big.pftrace") / 1048576 )) MiB written"
rm -f "$out/big.pftrace"

echo
real_suites

# --- record as a whole, per event (issue 29) -----------------------------------
# record_per_event: the 1.8 M-event loop (launch_heavy: 300,000 tiny target
# regions of 6 events each) natively, under 'mapprof record' with the empty
# tool (the floor) and recorded, in rotating order, BENCH_EVENT_RUNS times
# (default 5).  Prints record's whole command (from the shell: creating the
# database, the program, expanding the spool, finishing) in µs per event,
# its ratio to the floor's command, and what the expansion after the
# program took (stats record_expand_ns, record_expand_cpu_ns): wall and CPU
# time per event, and events per second of CPU.
record_per_event() {
	local regions=${BENCH_EVENT_REGIONS:-300000} runs=${BENCH_EVENT_RUNS:-5} i k order
	local nat=() natc=() natcpu=() recc=() fl=() rc=() ev xw xc
	# The six orders of the three sides: each side in each position alike.
	local orders=(nrf rfn fnr nfr rnf frn)
	for ((i = 0; i < runs; i++)); do
		order=${orders[i % 6]}
		for ((k = 0; k < 3; k++)); do
			case ${order:k:1} in
			n) run_native "$B/bench/launch_heavy" "$regions" ;;
			r) tool='' run_recorded "$out/pe-r-$i.db" "$B/bench/launch_heavy" "$regions"
			   rc+=("${recc[-1]}") ;;
			f) tool=$B/bench/libempty-tool.so run_recorded "$out/pe-f-$i.db" "$B/bench/launch_heavy" "$regions"
			   fl+=("${recc[-1]}") ;;
			esac
		done
	done
	ev=$(sqlite3 "$out/pe-r-0.db" "SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw)
	                               + (SELECT COUNT(*) FROM target_raw)")
	: >"$out/pe-x"
	for ((i = 0; i < runs; i++)); do
		sqlite3 -separator ' ' -nullvalue 0 "$out/pe-r-$i.db" "SELECT
			(SELECT value FROM stats WHERE name = 'record_expand_ns'),
			(SELECT value FROM stats WHERE name = 'record_expand_cpu_ns')" >>"$out/pe-x"
		rm -f "$out/pe-r-$i.db" "$out/pe-f-$i.db"
	done
	xw=$(awk '{ print $1 }' "$out/pe-x" | median)
	xc=$(awk '{ print $2 }' "$out/pe-x" | median)
	local r f n
	r=$(printf '%s\n' "${rc[@]}" | median)
	f=$(printf '%s\n' "${fl[@]}" | median)
	n=$(printf '%s\n' "${natc[@]}" | median)
	echo "record: $(awk -v t="$r" -v e="$ev" 'BEGIN { printf "%.3f", t / 1000 / e }') µs per event ($ev events;" \
		"launch_heavy $regions, median of $runs runs of the whole command)"
	echo "  the whole command: record $(ms "$r") ms, empty-tool floor $(ms "$f") ms, native $(ms "$n") ms;" \
		"record / floor $(ratio_of "$r" "$f") (target <= 1.3)"
	echo "  expanding the spool after the program: $(awk -v t="$xw" -v e="$ev" 'BEGIN { printf "%.3f", t / 1000 / e }')" \
		"µs per event wall, $(awk -v t="$xc" -v e="$ev" 'BEGIN { printf "%.3f", t / 1000 / e }') µs CPU" \
		"($(awk -v t="$xc" -v e="$ev" 'BEGIN { printf "%.2f", (t > 0 ? e / (t / 1e9) / 1e6 : 0) }') M events per CPU second)"
}
if [ "$what" = all ]; then
	echo
	use_tunables "${user_tunables:-$fixed_tunables}"
	record_per_event
	echo
	use_tunables "$user_tunables"
	check_suite
fi
