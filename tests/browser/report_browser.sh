#!/usr/bin/env bash
# report_browser.sh - report.html in a real browser: Debian's headless
# Chromium driven through chromedriver by Debian's python3-selenium
# (tests/browser/check_report.py), nothing downloaded.  First proves the
# checker can fail (its selftest page does everything the checks forbid), then
# opens the pages tests/unit/test_html.c writes into $MAPPROF_BUILD/test-output/
# (a report shaped like the round_trip sample's, one full of hostile strings,
# one with 10 000 findings over 100 000 events) and, once 'mapprof report
# --html' exists, a real recording of a sample, one of a program whose path
# and arguments are hostile, and one of samples/jacobi_like.c built from deep
# in a source tree (many findings, long absolute paths) for the layout at
# 1280x800 and 1920x1080 (OMPCC, LLVM_DIR, OFFLOAD_TARGET: as the Makefile's),
# and reports over several databases (a forked child's, four ranks'): the
# processes view.  Screenshots: $MAPPROF_BUILD/test-output/report-*.png.
#
# Needs, on Debian 12:
#   apt-get install --no-install-recommends chromium chromium-driver python3-selenium
# CHROMIUM, CHROMEDRIVER and PYTHON name other binaries (defaults
# /usr/bin/chromium, /usr/bin/chromedriver, /usr/bin/python3: the python3 first
# on PATH may lack selenium).  When one is missing it prints 'SKIP: REASON'
# and exits 77; tests/run.sh decides whether a skip is allowed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${MAPPROF_BUILD:?MAPPROF_BUILD must name the build directory}
out=$B/test-output
export CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
python=${PYTHON:-/usr/bin/python3}

skip() {
	echo "SKIP: $1 (apt-get install --no-install-recommends $2); report.html was not tested in a browser"
	exit 77
}
[ -x "$CHROMIUM" ] || skip "$CHROMIUM is missing" chromium
[ -x "$CHROMEDRIVER" ] || skip "$CHROMEDRIVER is missing" chromium-driver
command -v "$python" >/dev/null || skip "$python is missing" python3
"$python" -c 'import selenium' 2>/dev/null || skip "$python cannot import selenium" python3-selenium

mkdir -p "$out"
if [ ! -f "$out/fixture-report.html" ] || [ ! -f "$out/xss-report.html" ] || [ ! -f "$out/big-report.html" ]; then
	[ -x "$B/tests/test_html" ] || { echo "error: $B/tests/test_html is not built (make check builds it)"; exit 1; }
	MAPPROF_BUILD=$B "$B/tests/test_html" >/dev/null
fi

status=0
run() {
	echo "== $*"
	"$python" "$here/check_report.py" "$@" || status=1
}
run selftest "$out"
run sample "$out/fixture-report.html" "$out" \
	--expect round_trip:samples/round_trip.c:35:a \
	--expect round_trip:samples/round_trip.c:43:b \
	--expect repeated_alloc:samples/round_trip.c:35:a
run xss "$out/xss-report.html" "$out"
run big "$out/big-report.html" "$out"

# A real recording, once the CLI writes HTML.
if [ -x "$B/mapprof" ] && [ -x "$B/samples/round_trip" ] &&
   "$B/mapprof" report --help 2>&1 | grep -- '--html' >/dev/null; then  # not -q: an early exit is a SIGPIPE, a failure under pipefail
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	if (cd "$dir" && "$B/mapprof" record -o round_trip.db -- "$B/samples/round_trip" >/dev/null &&
	    "$B/mapprof" report --html "$out/round_trip-report.html" round_trip.db >/dev/null); then
		run sample "$out/round_trip-report.html" "$out/round_trip" --require-lines
	else
		echo "error: cannot record and report samples/round_trip"
		status=1
	fi
	# The detail's words on a real recording (issue 26, item 9): the count and
	# the places in separate phrases, "the host" for the initial device.
	if (cd "$dir" && "$B/mapprof" record -o dup.db -- "$B/samples/duplicate_transfer" >/dev/null 2>&1 &&
	    "$B/mapprof" report -q --no-json --html "$out/dup-report.html" dup.db >/dev/null); then
		run sample "$out/dup-report.html" "$out/dup" --require-lines \
			--what 'duplicate_transfer:a:was sent 1 more time, from the host to device 0, with content the receiver already held' \
			--what 'repeated_alloc:a:was allocated and freed 1 more time than needed, on device 0 ' \
			--what "duplicate_transfer:a:The host: the program's own memory, OpenMP's initial device"
	else
		echo "error: cannot record and report samples/duplicate_transfer"
		status=1
	fi
	# A run whose map clauses move nothing (unified shared memory, issue 26,
	# item 14): the page says so where the findings would be.
	llvm=${LLVM_DIR:-/usr/lib/llvm-19}
	printf '%s\n' '#pragma omp requires unified_shared_memory' '#include <stdlib.h>' \
		'int main(void) { double *a = calloc(4096, sizeof(double));' \
		'for (int it = 0; it < 3; it++) {' '#pragma omp target map(tofrom: a[0:4096])' \
		'for (int i = 0; i < 4096; i++) a[i] += 1; }' 'return a[1] == 3 ? 0 : 1; }' >"$dir/usm.c"
	if "${OMPCC:-clang-19}" -fopenmp -fopenmp-targets="${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}" -g "$dir/usm.c" -o "$dir/usm" \
		-Wl,-rpath,"$llvm/lib" -L"$llvm/lib" &&
	   (cd "$dir" && "$B/mapprof" record -o usm.db -- ./usm >/dev/null 2>&1 &&
	    "$B/mapprof" report -q --no-json --html "$out/usm-report.html" usm.db >/dev/null); then
		run usm "$out/usm-report.html" "$out"
	else
		echo "error: cannot build, record and report a unified shared memory program"
		status=1
	fi
	# A real recording of a program whose path and arguments are hostile.
	evil="$dir/<script>window.__xss=1</script>\"q"
	mkdir -p "$evil"
	cp "$B/samples/round_trip" "$evil/rt<img src=x onerror=window.__xss=2>"
	if (cd "$dir" && "$B/mapprof" record -o evil.db -- "$evil/rt<img src=x onerror=window.__xss=2>" \
		'<script>window.__xss=3</script>' '"quoted" & <b>bold</b>' >/dev/null 2>&1 &&
	    "$B/mapprof" report -q --html "$out/hostile-report.html" evil.db >/dev/null); then
		run hostile "$out/hostile-report.html" "$out"
	else
		echo "error: cannot record and report a program with a hostile path"
		status=1
	fi
	# Many findings and deep absolute source paths, as a real solver's: the layout.
	src=$dir/home/user/projects/heat-solver/src/omp_syn
	mkdir -p "$src"
	cp "$here/../../samples/jacobi_like.c" "$src/local_halos_jacobi.c"
	llvm=${LLVM_DIR:-/usr/lib/llvm-19}
	if "${OMPCC:-clang-19}" -fopenmp -fopenmp-targets="${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}" -g -O1 \
		"$src/local_halos_jacobi.c" -o "$dir/solver" -Wl,-rpath,"$llvm/lib" -L"$llvm/lib" &&
	   (cd "$dir" && "$B/mapprof" record -o solver.db -- ./solver >/dev/null 2>&1 &&
	    "$B/mapprof" report -q --no-json --html "$out/layout-report.html" solver.db >/dev/null); then
		run layout "$out/layout-report.html" "$out"
	else
		echo "error: cannot build, record and report samples/jacobi_like.c from a deep source tree"
		status=1
	fi
	# Several databases, one per process: the processes view.  A program and
	# its forked child (each its own findings), then four ranks of one
	# recording (copies given another pid and rank: the findings merged).
	if [ -x "$B/samples/procs/fork_child" ] && [ -x "$B/samples/duplicate_transfer" ]; then
		if (cd "$dir" && "$B/mapprof" record -o fork.db -- "$B/samples/procs/fork_child" >/dev/null 2>&1 &&
		    "$B/mapprof" report -q --no-json --html "$out/procs-report.html" fork*.db >/dev/null); then
			run procs "$out/procs-report.html" "$out/procs-fork"
		else
			echo "error: cannot record and report samples/procs/fork_child"
			status=1
		fi
		if (cd "$dir" && "$B/mapprof" record -o rank.db -- "$B/samples/duplicate_transfer" >/dev/null 2>&1 &&
		    for i in 0 1 2 3; do
			cp rank.db "rank.$i.db" &&
			sqlite3 "rank.$i.db" "UPDATE process_raw SET pid = $((7000 + i)), rank = $i, rank_var = 'PMIX_RANK'" || exit 1
		    done &&
		    "$B/mapprof" report -q --no-json --html "$out/ranks-report.html" rank.2.db rank.0.db rank.3.db rank.1.db >/dev/null); then
			run procs "$out/ranks-report.html" "$out/procs-ranks"
		else
			echo "error: cannot record and report four rank databases"
			status=1
		fi
	else
		echo "error: $B/samples/procs/fork_child or duplicate_transfer is not built (make samples)"
		status=1
	fi
else
	echo "note: 'mapprof report --html' is not available yet: checked the fixtures only"
fi
exit $status
