#!/usr/bin/env bash
# bench/reference/run.sh - mapprof against the published tool, side by side
# on this machine (make bench-reference REF=DIR).
#
# usage: bench/reference/run.sh BUILD REF
#
# REF is a folder holding two checkouts, which this script only reads:
#   REF/ompdataperf  github.com/lmarzen/ompdataperf (OMPDataPerf, GPL-3.0;
#                    c7173080937c9b4a1061cee80e9bd3afbf1a0fde measured)
#   REF/t1ha         github.com/erthink/t1ha (its hashes/t1ha submodule;
#                    e5456d0319245c194869fcba029a70bdf6fb5f81 measured)
# BUILD is mapprof's build folder (mapprof, bench/timeit, bench/bootstrap,
# bench/libhash-floor.so, bench/real/*.naive|fixed).
#
# Nothing of the published tool enters the repository: it is copied,
# patched (src/analyze.cc lacks '#include <algorithm>'), configured as its
# build.sh does (Release, t1ha0_ia32aes_avx2, no collision checking, no
# hashing-overhead timing) and built in a scratch folder, REF_BUILD (default
# ${TMPDIR:-/tmp}/mapprof-reference), which stays after the run:
#   REF_BUILD/tool/ompdataperf   its launcher (and libompdataperf.so beside it)
#   REF_BUILD/src/ompdataperf/eval/src/*   its evaluation programs, built for
#                                host offload (OFFLOAD_TARGET, -g -gdwarf-aranges)
#   REF_BUILD/inputs/            generated inputs (bench/reference/gen_inputs.c)
#   REF_BUILD/logs/              build logs
#   REF_BUILD/runs/              times.txt (every run), each side's last stderr
# It is run as a black box: wall and CPU time of whole commands only.
# What is already there is not built again (remove REF_BUILD, or one of its
# logs/*.ok, after a change of REF).
#
# For each program, REF_RUNS rounds (default 5) of four runs, in rotating
# order (a Williams square, as in bench/run.sh: each side runs once in each
# position and right after each other side once over four rounds), and
# more where a program is short: rounds go on, four at a time, until the
# program's rounds took REF_MIN_S seconds (default 10; 0: exactly REF_RUNS)
# or REF_RUNS_MAX rounds (default 32) were run.  A run's noise is a few
# milliseconds whatever its length, so a 0.1 s program's ratios spread 10x
# wider than a 1 s program's; the table says each program's rounds:
#   n  the program alone
#   m  mapprof record -f -o REF_BUILD/runs/x.db -- PROGRAM ARGS
#   h  the same with the hash floor as the collector (MAPPROF_COLLECTOR=
#      bench/libhash-floor.so, as 'make bench' runs it)
#   p  the published tool's launcher: REF_BUILD/tool/ompdataperf PROGRAM ARGS
# each timed whole (start to exit, bench/timeit; user and sys from wait4),
# under 'timeout REF_TIMEOUT' (default 120 s).  Per program: the median of
# the per-round ratios m/p and h/p with 95% bootstrap intervals
# (bench/bootstrap -r -e), then their geometric means over the programs.
# A program on which any side fails or times out gets a note instead and
# stays out of the means.  REF_PROGS="bfs lud.syn real/cg.naive ..." runs
# only those.
#
# Needs: bash, coreutils, sqlite3, cmake, make, clang (OMPCC, default clang-19, and
# its clang++), libdw's headers (libdw-dev), a C compiler (cc) for the
# input generator.  OMP_NUM_THREADS defaults to 2; every side runs with
# LD_LIBRARY_PATH=LLVM_DIR/lib, which the published tool needs, and with
# GLIBC_TUNABLES=glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824
# unless the caller sets GLIBC_TUNABLES (an empty one: glibc's own
# behaviour).  Host offload's device buffers are malloc'ed and freed at every
# map; with glibc's dynamic mmap threshold whether they page-fault on every
# map depends on the heap's history, which a tool's own allocations change
# (the published tool made real/stencil.naive run 4x faster than natively,
# which says nothing of either tool).  Held fixed, no buffer is given back
# to the kernel: they stop faulting, as a GPU's device memory never faults
# the host's pages, and what is left between the sides is the tools' work.
set -euo pipefail
if (($# != 2)); then
	echo "usage: bench/reference/run.sh BUILD REF" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
. "$repo/bench/rounds.sh"
B=$(cd "$1" && pwd)
REF=$(cd "$2" && pwd)
S=${REF_BUILD:-${TMPDIR:-/tmp}/mapprof-reference}
N=${REF_RUNS:-5}
MIN_S=${REF_MIN_S:-10}
NMAX=${REF_RUNS_MAX:-32}
T=${REF_TIMEOUT:-120}
OMPCC=${OMPCC:-clang-19}
OMPCXX=${OMPCXX:-${OMPCC/clang/clang++}}
TARGET=${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
JOBS=$(nproc)

die() { echo "bench-reference: error: $1" >&2; [ -z "${2:-}" ] || echo "bench-reference: hint: $2" >&2; exit 3; }
for v in N MIN_S NMAX; do
	[[ ${!v} =~ ^[0-9]+$ ]] || die "REF_RUNS, REF_MIN_S and REF_RUNS_MAX take whole numbers, not '${!v}'"
done
((N >= 1)) || die "REF_RUNS must be 1 or more"
((NMAX >= N)) || NMAX=$N

[ -d "$REF/ompdataperf/src" ] && [ -f "$REF/ompdataperf/CMakeLists.txt" ] ||
	die "'$REF/ompdataperf' is not a checkout of lmarzen/ompdataperf" "REF holds ompdataperf/ and t1ha/"
[ -f "$REF/t1ha/t1ha.h" ] || die "'$REF/t1ha' is not a checkout of erthink/t1ha" "REF holds ompdataperf/ and t1ha/"
for t in mapprof bench/timeit bench/bootstrap bench/libhash-floor.so; do
	[ -e "$B/$t" ] || die "'$B/$t' is missing" "make -C $repo B=$B all build-tools"
done
for c in cmake make "$OMPCC" "$OMPCXX" cc timeout sqlite3; do
	command -v "$c" >/dev/null || die "'$c' is not on PATH"
done
[ -f /usr/include/elfutils/libdw.h ] || die "libdw's headers are missing" "apt-get install libdw-dev"
mkdir -p "$S"
S=$(cd "$S" && pwd)
case $S/ in "$repo"/*) die "REF_BUILD '$S' is inside the repository" "the published tool is built outside it" ;; esac
mkdir -p "$S/bin" "$S/logs" "$S/inputs" "$S/runs"

# --- the published tool, built in the scratch folder ---------------------------
# It calls plain clang/clang++: links to OMPCC's on PATH.
ln -sf "$(command -v "$OMPCC")" "$S/bin/clang"
ln -sf "$(command -v "$OMPCXX")" "$S/bin/clang++"
export PATH=$S/bin:$PATH
src=$S/src/ompdataperf
eval_src=$src/eval/src
if [ ! -f "$S/src/.copied" ]; then
	echo "bench-reference: copying $REF into $S/src"
	rm -rf "$S/src"
	mkdir -p "$S/src"
	cp -a "$REF/ompdataperf" "$src"
	rm -rf "$src/.git" "$src/hashes/t1ha"
	cp -a "$REF/t1ha" "$src/hashes/t1ha"
	rm -rf "$src/hashes/t1ha/.git"
	# The one patch: analyze.cc uses std algorithms without their header.
	grep -q '^#include <algorithm>' "$src/src/analyze.cc" ||
		sed -i '1i #include <algorithm>' "$src/src/analyze.cc"
	touch "$S/src/.copied"
fi
if [ ! -x "$S/tool/ompdataperf" ] || [ ! -f "$S/tool/libompdataperf.so" ]; then
	echo "bench-reference: building the published tool into $S/tool (log: $S/logs/tool.log)"
	{ cmake -S "$src" -B "$S/tool" -DCMAKE_BUILD_TYPE=Release -DENABLE_COLLISION_CHECKING=OFF \
		-DMEASURE_HASHING_OVERHEAD=OFF -DHASH_FUNCTION=t1ha0_ia32aes_avx2 &&
	  cmake --build "$S/tool" -j "$JOBS"; } >"$S/logs/tool.log" 2>&1 ||
		{ tail -n 20 "$S/logs/tool.log" >&2; die "the published tool did not build" "see $S/logs/tool.log"; }
fi

# --- inputs: generated, fixed seeds (Rodinia's cannot be downloaded here) ------
if [ ! -x "$S/bin/gen_inputs" ] || [ "$here/gen_inputs.c" -nt "$S/bin/gen_inputs" ]; then
	cc -O2 -Wall -o "$S/bin/gen_inputs" "$here/gen_inputs.c"
	rm -f "$S/inputs/graph1M.txt" "$S/inputs/temp_1024" "$S/inputs/power_1024"
fi
[ -s "$S/inputs/graph1M.txt" ] || "$S/bin/gen_inputs" bfs 1000000 "$S/inputs/graph1M.txt"
[ -s "$S/inputs/power_1024" ] ||
	"$S/bin/gen_inputs" hotspot 1024 "$S/inputs/temp_1024" "$S/inputs/power_1024"

# --- its evaluation programs, for host offload ----------------------------------
# Each build file's offload target switched by overriding its flag variables
# on make's (or cmake's) command line; CUDA-only flags dropped with them.
# -gdwarf-aranges: libdw 0.188 needs aranges for the published tool's line
# lookup.  A program that does not build is reported and left out.
off="-fopenmp -fopenmp-targets=$TARGET -g -gdwarf-aranges"
build_eval() {
	local name=$1
	shift
	[ -f "$S/logs/$name.ok" ] && return 0
	[ -f "$S/logs/$name.failed" ] && return 1
	echo "bench-reference: building $name (log: $S/logs/$name.log)"
	if "$@" >"$S/logs/$name.log" 2>&1; then
		touch "$S/logs/$name.ok"
	else
		touch "$S/logs/$name.failed"
		echo "bench-reference: $name did not build; left out (see $S/logs/$name.log)" >&2
		return 1
	fi
}
mk() { make -C "$eval_src/$1" "${@:2}"; }
build_babelstream() {
	cmake -S "$eval_src/BabelStream" -B "$eval_src/BabelStream/build" -DCMAKE_CXX_COMPILER=clang++ \
		-DMODEL=omp -DOFFLOAD=ON -DOFFLOAD_FLAGS="$off" -DCMAKE_BUILD_TYPE=Release &&
	cmake --build "$eval_src/BabelStream/build" -j "$JOBS" &&
	cmake -S "$eval_src/BabelStream" -B "$eval_src/BabelStream/build_syn" -DCMAKE_CXX_COMPILER=clang++ \
		-DMODEL=omp_syn -DOFFLOAD=ON -DOFFLOAD_FLAGS="$off" -DCMAKE_BUILD_TYPE=Release &&
	cmake --build "$eval_src/BabelStream/build_syn" -j "$JOBS"
}
build_tealeaf() {
	local b
	for b in build:omp-target build_syn:omp-target_syn; do
		cmake -S "$eval_src/TeaLeaf" -B "$eval_src/TeaLeaf/${b%%:*}" -DMODEL="${b#*:}" -DENABLE_MPI=OFF \
			-DOFFLOAD=ON -DOFFLOAD_FLAGS="$off" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
			-DCMAKE_BUILD_TYPE=Release &&
		cmake --build "$eval_src/TeaLeaf/${b%%:*}" -j "$JOBS" || return 1
	done
	# Its decks are not in its problems file: a 250x250 deck of 3 steps, made
	# from its own tea.in, and a problems line with the value a native run
	# computes (so that later runs check against it).
	sed -e 's/^x_cells=.*/x_cells=250/' -e 's/^y_cells=.*/y_cells=250/' -e 's/^end_step=.*/end_step=3/' \
		"$eval_src/TeaLeaf/tea.in" >"$S/inputs/tea250.in"
	: >"$S/inputs/tea250.problems"
	(cd "$S/runs" && "$eval_src/TeaLeaf/build/omp-target-tealeaf" --file "$S/inputs/tea250.in" \
		--problems "$S/inputs/tea250.problems" || true) >"$S/logs/tealeaf-value.txt" 2>&1
	awk '$1 == "Actual" { printf "250 250 3 %s\n", $2; found = 1 } END { exit !found }' \
		"$S/logs/tealeaf-value.txt" >"$S/inputs/tea250.problems"
}
build_lud() {
	local f
	for f in Makefile.offload Makefile.offload_syn; do
		mk lud/omp -f "$f" COMMON_CFLAGS="$off -Wno-uninitialized -Wno-return-type" COMMON_LDFLAGS="$off" || return 1
	done
}
build_minife() {
	local d
	for d in src-openmp45-opt src-openmp45-opt-fix; do
		mk "miniFE/$d" CFLAGS="$off -ffp-contract=fast -DNDEBUG -O3" || return 1
	done
}
# mk2 DIR MAKEFILE1 MAKEFILE2 VAR=VALUE...: both of DIR's makefiles, as for
# the fixed or synthetic variants built by a second makefile.
mk2() { mk "$1" -f "$2" "${@:4}" && mk "$1" -f "$3" "${@:4}"; }
build_eval babelstream build_babelstream || true
build_eval bfs mk bfs bfs_offload bfs_offload_fix CC=clang++ ICC=clang++ CC_FLAGS="$off -DNDEBUG -O2" || true
build_eval hotspot mk hotspot hotspot_offload hotspot_offload_synthetic \
	OFFLOAD_CC_FLAGS="-fopenmp-targets=$TARGET -g -gdwarf-aranges" || true
build_eval lud build_lud || true
build_eval minife build_minife || true
build_eval minifmm mk2 minifmm Makefile Makefile.syn CFLAGS="-O3 -ffast-math $off" LIBS="$off" || true
build_eval nw mk nw needle_offload needle_offload_syn OFFLOAD_CC_FLAGS="-fopenmp-targets=$TARGET -g -gdwarf-aranges" || true
build_eval rsbench mk2 RSBench Makefile Makefile.fix CFLAGS="-std=gnu99 -Wall $off -O3" || true
build_eval tealeaf build_tealeaf || true
build_eval torture mk torture torture torture_fix CFLAGS="$off -DNDEBUG -O2" || true
build_eval xsbench mk2 XSBench Makefile Makefile.fix CFLAGS="-std=gnu99 -Wall $off -O3" || true

# --- the programs and their inputs ------------------------------------------------
# "NAME|STATUS|PROGRAM ARGS...": inputs chosen so that a native run here takes
# about 0.2-3 s (their papers' largest inputs take minutes on two cores);
# STATUS is the exit status a correct run has: RSBench and XSBench check
# their result only against the default sizes' checksums and exit 1 on any
# other size (27 and 23 s natively here).  torture: one of its transfer
# sizes (16 MiB, 127 times).  Left out: eval/src/null, a program that does
# nothing (start-up alone, well under 0.2 s).  Every run's working folder
# is REF_BUILD/runs.
e=$eval_src
progs=(
	"babelstream|0|$e/BabelStream/build/omp-stream -n 20 -s 4194304"
	"babelstream.syn|0|$e/BabelStream/build_syn/omp_syn-stream -n 20 -s 4194304"
	"bfs|0|$e/bfs/bfs_offload 2 $S/inputs/graph1M.txt"
	"bfs.fix|0|$e/bfs/bfs_offload_fix 2 $S/inputs/graph1M.txt"
	"hotspot|0|$e/hotspot/hotspot_offload 1024 1024 20 2 $S/inputs/temp_1024 $S/inputs/power_1024 $S/runs/hotspot.out"
	"hotspot.syn|0|$e/hotspot/hotspot_offload_synthetic 1024 1024 20 2 $S/inputs/temp_1024 $S/inputs/power_1024 $S/runs/hotspot.out"
	"lud|0|$e/lud/omp/lud_omp_offload -s 1536"
	"lud.syn|0|$e/lud/omp/lud_omp_offload_syn -s 1536"
	"minife|0|$e/miniFE/src-openmp45-opt/miniFE.x -nx 66 -ny 64 -nz 64"
	"minife.fix|0|$e/miniFE/src-openmp45-opt-fix/miniFE.x -nx 66 -ny 64 -nz 64"
	"minifmm|0|$e/minifmm/fmm.omptarget -n 10000"
	"minifmm.syn|0|$e/minifmm/fmm.omptarget_syn -n 10000"
	"nw|0|$e/nw/needle_offload 4096 10 2"
	"nw.syn|0|$e/nw/needle_offload_syn 4096 10 2"
	"rsbench|1|$e/RSBench/rsbench -m event -s small -l 200000"
	"rsbench.fix|1|$e/RSBench/rsbench_fix -m event -s small -l 200000"
	"tealeaf|0|$e/TeaLeaf/build/omp-target-tealeaf --file $S/inputs/tea250.in --problems $S/inputs/tea250.problems"
	"tealeaf.syn|0|$e/TeaLeaf/build_syn/omp-target-tealeaf_syn --file $S/inputs/tea250.in --problems $S/inputs/tea250.problems"
	"torture|0|$e/torture/torture 127 16777216"
	"torture.fix|0|$e/torture/torture_fix 127 16777216"
	"xsbench|1|$e/XSBench/XSBench -m event -s small -l 500000"
	"xsbench.fix|1|$e/XSBench/XSBench_fix -m event -s small -l 500000"
)
for p in "$B"/bench/real/*.naive "$B"/bench/real/*.fixed; do
	[ -x "$p" ] && progs+=("real/$(basename "$p")|0|$p")
done
if [ -n "${REF_PROGS:-}" ]; then
	keep=()
	for entry in "${progs[@]}"; do
		case " $REF_PROGS " in *" ${entry%%|*} "*) keep+=("$entry") ;; esac
	done
	progs=("${keep[@]}")
fi

# --- the runs ------------------------------------------------------------------
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824}
export LD_LIBRARY_PATH=$LLVM_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
unset MAPPROF_COLLECTOR OMP_TOOL_LIBRARIES
R=$S/runs
times=$R/times.txt
: >"$times"
orders=(nmhp mpnh phmn hnpm)
side_name() { case $1 in n) echo native ;; m) echo mapprof ;; h) echo hash-floor ;; p) echo published ;; esac; }

# run_side SIDE NAME STATUS PROGRAM ARGS...: one timed run; appends
# "NAME SIDE WALL_NS USER_NS SYS_NS" to $times and returns 0 when it exits
# with STATUS; otherwise returns 1, its exit status in $run_rc (124: timed out).
run_side() {
	local side=$1 name=$2 want=$3 rc=0 w u s
	shift 3
	local err=$R/${name//\//_}.$side.err
	case $side in
	n) "$B/bench/timeit" "$R/t" timeout -k 5 "$T" "$@" >/dev/null 2>"$err" || rc=$? ;;
	m) "$B/bench/timeit" "$R/t" timeout -k 5 "$T" "$B/mapprof" record -f -o "$R/m.db" -- "$@" \
		>/dev/null 2>"$err" || rc=$? ;;
	h) MAPPROF_COLLECTOR=$B/bench/libhash-floor.so "$B/bench/timeit" "$R/t" timeout -k 5 "$T" \
		"$B/mapprof" record -f -o "$R/x.db" -- "$@" >/dev/null 2>"$err" || rc=$? ;;
	p) "$B/bench/timeit" "$R/t" timeout -k 5 "$T" "$S/tool/ompdataperf" "$@" >/dev/null 2>"$err" || rc=$? ;;
	esac
	run_rc=$rc
	((rc == want)) || return 1
	read -r w _ u s <"$R/t"
	echo "$name $side $w $u $s" >>"$times"
}

echo "mapprof against the published tool (OMPDataPerf): $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
read -r load _ </proc/loadavg
echo "$N rounds each, more up to $NMAX while a program's took under ${MIN_S}s (native, mapprof, hash floor," \
	"published in rotating order), timeout ${T}s," \
	"OMP_NUM_THREADS=$OMP_NUM_THREADS, GLIBC_TUNABLES=${GLIBC_TUNABLES:-unset}, load average $load"
echo "whole commands' wall time; ratios: median of per-round ratios (95% bootstrap interval)"
echo
fmt='%-20s %9s %9s  %-22s %-22s %9s %7s\n'
printf "$fmt" program native_s publ_s 'mapprof/published' 'floor/published' publ/nat rounds
: >"$R/mp.txt"
: >"$R/hp.txt"
: >"$R/notes.txt"
: >"$R/parts.txt"
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# side_median NAME SIDE FIELD: the median of FIELD (3 wall, 4 user, 5 sys) in seconds.
side_median() { awk -v p="$1" -v s="$2" -v f="$3" '$1 == p && $2 == s { print $f / 1e9 }' "$times" | med; }
t_start=$SECONDS
cd "$R"
for entry in "${progs[@]}"; do
	IFS='|' read -r name want cmd <<<"$entry"
	read -ra argv <<<"$cmd"
	if [ ! -x "${argv[0]}" ]; then
		printf '%-20s %s\n' "$name" "left out: not built (see $S/logs/)" | tee -a "$R/notes.txt"
		continue
	fi
	failed=
	t_prog=$EPOCHREALTIME
	for ((i = 0; !${#failed}; i++)); do
		more_rounds "$i" "$t_prog" "$N" "$MIN_S" "$NMAX" || break
		order=${orders[i % 4]}
		for ((k = 0; k < 4; k++)); do
			side=${order:k:1}
			if ! run_side "$side" "$name" "$want" "${argv[@]}"; then
				failed="$(side_name "$side") $( ((run_rc == 124 || run_rc == 137)) && echo "timed out (${T}s)" ||
					echo "failed (exit $run_rc)")"
				break
			fi
		done
	done
	if [ -n "$failed" ]; then
		printf '%-20s %s\n' "$name" "left out: $failed; stderr in $R/${name//\//_}.*.err" | tee -a "$R/notes.txt"
		continue
	fi
	awk -v p="$name" '$1 == p { w[$2, ++n[$2]] = $3 }
		END { for (i = 1; i <= n["p"]; i++) { print p, w["p", i], w["m", i] >> "mp.txt"; print p, w["p", i], w["h", i] >> "hp.txt" } }' "$times"
	# Where mapprof's time went, from its last recording's stats (docs/database.md).
	echo "$name $(sqlite3 "$R/m.db" "SELECT
		(SELECT IFNULL(SUM(value), 0) FROM stats WHERE name = 'hash_bytes'),
		(SELECT IFNULL(SUM(value), 0) FROM stats WHERE name = 'hash_reused_bytes'),
		(SELECT IFNULL(SUM(value), 0) FROM stats WHERE name = 'collector_own_ns'),
		(SELECT IFNULL(SUM(value), 0) FROM stats WHERE name = 'hash_wtrack_ns'),
		(SELECT IFNULL(SUM(value), 0) FROM stats WHERE name = 'record_expand_ns')" 2>/dev/null | tr '|' ' ')" >>"$R/parts.txt"
	mp=$(awk -v p="$name" '$1 == p' mp.txt | "$B/bench/bootstrap" -r -e | head -n 1)
	hp=$(awk -v p="$name" '$1 == p' hp.txt | "$B/bench/bootstrap" -r -e | head -n 1)
	nat=$(side_median "$name" n 3)
	pub=$(side_median "$name" p 3)
	read -r _ r lo hi <<<"$mp"
	read -r _ hr hlo hhi <<<"$hp"
	printf "$fmt" "$name" "$(printf %.2f "$nat")" "$(printf %.2f "$pub")" "$r ($lo-$hi)" "$hr ($hlo-$hhi)" \
		"$(awk -v a="$pub" -v b="$nat" 'BEGIN { printf "%.2f", a / b }')" "$i"
done
echo
if [ -s "$R/mp.txt" ]; then
	read -r _ g lo hi < <("$B/bench/bootstrap" -r -e <"$R/mp.txt" | tail -n 1)
	read -r _ hg hlo hhi < <("$B/bench/bootstrap" -r -e <"$R/hp.txt" | tail -n 1)
	echo "geometric mean over $(awk '{ print $1 }' "$R/mp.txt" | sort -u | wc -l) programs:" \
		"mapprof/published $g ($lo-$hi), floor/published $hg ($hlo-$hhi)"
fi
echo
echo "CPU seconds, median user/sys of the whole command:"
printf '%-20s %13s %13s %13s %13s\n' program native mapprof hash-floor published
for name in $(awk '{ print $1 }' "$R/mp.txt" | uniq); do
	line=$(printf '%-20s' "$name")
	for side in n m h p; do
		line+=$(printf ' %13s' "$(printf '%.2f/%.2f' "$(side_median "$name" "$side" 4)" "$(side_median "$name" "$side" 5)")")
	done
	echo "$line"
done
echo
echo "where mapprof's time goes (its last recording's stats; medians of the runs for wall and sys):"
echo "  hashed/reused: GB read to hash, GB whose hash was reused; own: the collector on the program's"
echo "  threads (hashing, write tracking, buffering), of it wtrack: write tracking's system calls;"
echo "  expand: record's work after the program; rest: mapprof's wall - native's - own - expand (start-up,"
echo "  the spool's writer, the program's own variation); sys: mapprof's and the published tool's over native"
printf '%-20s %7s %7s %8s %8s %8s %8s %8s %9s %9s\n' program hashed reused 'own ms' 'wtrack' 'expand' 'rest ms' \
	'wall+ ms' 'sys+ m' 'sys+ p'
while read -r name hb rb own wt ex; do
	[ -n "$ex" ] || continue
	nw=$(side_median "$name" n 3) mw=$(side_median "$name" m 3)
	ns=$(side_median "$name" n 5) ms=$(side_median "$name" m 5) ps=$(side_median "$name" p 5)
	awk -v n="$name" -v hb="$hb" -v rb="$rb" -v own="$own" -v wt="$wt" -v ex="$ex" -v nw="$nw" -v mw="$mw" \
		-v ns="$ns" -v ms="$ms" -v ps="$ps" 'BEGIN {
		d = (mw - nw) * 1e3
		printf "%-20s %7.2f %7.2f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %9.1f\n", n, hb / 1e9, rb / 1e9,
			own / 1e6, wt / 1e6, ex / 1e6, d - own / 1e6 - ex / 1e6, d, (ms - ns) * 1e3, (ps - ns) * 1e3 }'
done <"$R/parts.txt"
read -r load _ </proc/loadavg
echo
echo "every run: $times ($(((SECONDS - t_start) / 60)) min; load average $load at the end)"
echo "the published tool: $S/tool/ompdataperf; its evaluation programs: $eval_src"
