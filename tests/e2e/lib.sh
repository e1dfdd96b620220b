# tests/e2e/lib.sh - helpers for the end-to-end tests.  Source it:
#
#     . "$(dirname "$0")/lib.sh"
#
# tests/run.sh exports MAPPROF_BUILD (absolute build dir) and MAPPROF_SRC
# (repo root); when a test is run by hand they default to this checkout and
# its build/.  lib.sh owns the EXIT trap (it removes the tmpdir's): a test
# that needs its own cleanup should not replace it.

MAPPROF_SRC=${MAPPROF_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
MAPPROF_BUILD=${MAPPROF_BUILD:-$MAPPROF_SRC/build}
export MAPPROF_SRC MAPPROF_BUILD

# The test's own stderr, kept so that fail() is heard even from a helper
# whose stderr the caller redirected.
exec {_E2E_STDERR}>&2

# fail MSG...: print MSG to the test's stderr as the reason it failed, exit 1.
# Inside $(...) it only leaves the subshell: check such results yourself.
fail() {
	echo "FAIL: $*" >&"$_E2E_STDERR"
	exit 1
}

# skip REASON: this test cannot run here (a tool is missing): print
# 'SKIP: REASON' and exit 77.  tests/run.sh shows it as skipped, never as
# passed, and under CI=true counts it as a failure.
skip() {
	echo "SKIP: $*"
	exit 77
}

# The compilers and paths come from the Makefile (make test exports them);
# these defaults are the Makefile's, for a test run by hand.
OMPCC=${OMPCC:-clang-19}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
OFFLOAD_TARGET=${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}
PYTHON=${PYTHON:-python3}
export OMPCC LLVM_DIR OFFLOAD_TARGET PYTHON

# rss_checked: 0 when mapprof is built with sanitizers (make SANITIZE=...):
# ASan keeps freed memory in quarantine and adds its shadow, so a peak RSS
# measures the sanitizer, not mapprof.  Tests then skip their memory bounds
# (and say so), and check everything else.
rss_checked() {
	if [ -n "${SANITIZE:-}" ]; then
		echo "note: the peak-RSS bound is not checked under SANITIZE=$SANITIZE"
		return 1
	fi
}

# ompcc ARGS...: compile an OpenMP program with the Makefile's compiler,
# linked against its LLVM's OpenMP runtime (found at run time through an
# rpath).  Offloads to OFFLOAD_TARGET; ompcc_host compiles without offload.
ompcc() {
	ompcc_host -fopenmp-targets="$OFFLOAD_TARGET" "$@"
}
ompcc_host() {
	"$OMPCC" -fopenmp "$@" -Wl,-rpath,"$LLVM_DIR/lib" -L"$LLVM_DIR/lib"
}

# compile_offload SRC OUT [FLAGS...]: build the OpenMP offload program SRC
# (a file the test wrote, or one of tests/e2e/*.c, bench/*.c) into OUT with
# ompcc, FLAGS after the rest (-O1 -g, -DNAME=VALUE, -lpthread: libraries
# come after the source there), or fail the test: "cannot build NAME.c".
# The compiler's messages go to the test's stderr.
compile_offload() {
	[ $# -ge 2 ] || fail "usage: compile_offload SRC OUT [FLAGS...]"
	local src=$1 out=$2
	shift 2
	ompcc "$src" -o "$out" "$@" || fail "cannot build $(basename "$src")"
}

# record_prog DB PROG [ARGS...]: 'mapprof record -f -o DB -- PROG ARGS...'
# with the environment the caller sets (MAPPROF_HASH_REUSE=0 record_prog
# ...).  The program's standard output is record_prog's (redirect it);
# record's messages are kept and shown if it fails: the test fails unless
# record exits 0 (the program's own status).
record_prog() {
	[ $# -ge 2 ] || fail "usage: record_prog DB PROG [ARGS...]"
	local db=$1 err
	shift
	err=$(mktemp "$_E2E_TMP/record.XXXXXX") || fail "cannot make a temporary file"
	"$MAPPROF_BUILD/mapprof" record -f -o "$db" -- "$@" 2>"$err" ||
		fail "record $(basename "$db") ($(basename "$1")): $(cat "$err")"
	rm -f "$err"
}

# assert_eq GOT WANT WHAT: fail unless GOT and WANT are the same string.
assert_eq() {
	[ "$1" == "$2" ] || fail "$3: got '$1', want '$2'"
}

# q DB SQL: print the rows of SQL run on the SQLite file DB, '|' between
# columns, no header.  Fails the test if sqlite3 does.
q() {
	[ -f "$1" ] || fail "no database '$1'"
	sqlite3 -batch -noheader "$1" "$2" || fail "query failed on '$1': $2"
}

# stat_of DB NAME: the stats table's value NAME in DB (empty when absent).
stat_of() { q "$1" "SELECT value FROM stats WHERE name = '$2'"; }

# transfer_hashes DB: op, bytes and hash of every hashed transfer, in order.
transfer_hashes() { q "$1" "SELECT op, bytes, hash FROM data_ops WHERE hash IS NOT NULL ORDER BY seq"; }

# All tmpdir's live under one directory, made now and removed at exit, so
# that tmpdir also works inside $(...).
_E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-e2e.XXXXXX") ||
	fail "cannot make a temporary directory"
trap 'rm -rf "$_E2E_TMP"' EXIT

# tmpdir: print the path of a fresh empty directory (removed at exit).
tmpdir() {
	mktemp -d "$_E2E_TMP/d.XXXXXX" || fail "cannot make a temporary directory"
}

# tracer_run OUT PROGRAM ARGS...: run PROGRAM under the independent tracer
# (build/tests/libtracer.so), which writes one TSV line per finished event
# to OUT (see tests/tracer/tracer.c for the format).  Returns PROGRAM's
# exit status; its stdout and stderr pass through.  Gives up after
# MAPPROF_TEST_TIMEOUT seconds (default 60).
tracer_run() {
	local out=$1 lib=$MAPPROF_BUILD/tests/libtracer.so rc=0
	shift
	[ -f "$lib" ] || fail "no tracer '$lib' (hint: make build/tests/libtracer.so)"
	[ -x "$1" ] || fail "no program '$1' (hint: make samples)"
	rm -f "$out"
	OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$lib MAPPROF_TRACER_OUT=$out \
		timeout "${MAPPROF_TEST_TIMEOUT:-60}" "$@" || rc=$?
	[ "$rc" -ne 124 ] || fail "'$*' timed out under the tracer"
	[ -f "$out" ] || fail "the tracer wrote no '$out' for '$*'"
	return "$rc"
}

# tracer_counts TRACE: print the number of events of each kind in a tracer
# output as one line "alloc=N to_device=N from_device=N delete=N kernel=N"
# (then "other=N" if there are lines of any other op).
tracer_counts() {
	awk -F'\t' '
		{ n[$1]++ }
		END {
			split("alloc to_device from_device delete kernel", ops, " ")
			line = ""
			for (i = 1; i <= 5; i++) {
				line = line sprintf("%s%s=%d", i > 1 ? " " : "", ops[i], n[ops[i]])
				delete n[ops[i]]
			}
			other = 0
			for (k in n) other += n[k]
			if (other) line = line " other=" other
			print line
		}' "$1"
}

# db_counts DB: the events of a database in tracer_counts' format
# ("alloc=N to_device=N from_device=N delete=N kernel=N"), to compare one
# process's recording with its tracer output.
db_counts() {
	q "$1" "SELECT 'alloc=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'alloc')
		|| ' to_device=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'to_device')
		|| ' from_device=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'from_device')
		|| ' delete=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'delete')
		|| ' kernel=' || (SELECT COUNT(*) FROM kernels)"
}

# db_contents DB: its transfers as the tracer writes them ("op|bytes|hash"), sorted.
db_contents() {
	q "$1" "SELECT op, bytes, hash FROM data_ops WHERE hash IS NOT NULL" | sort
}

# tracer_contents TRACE: the same from a tracer output.
tracer_contents() {
	awk -F'\t' '$5 != "-" { print $1 "|" $4 "|" $5 }' "$1" | sort
}

# db_event_dump DB: 'sqlite3 .dump' without what only 'mapprof record' knows
# (the run's end, the process's exit, the program's and the expansion's
# times, the sources' hashes), to compare record's database with the one
# 'mapprof recover' makes of the same spool.
db_event_dump() {
	sqlite3 "$1" .dump | grep -v -E "^INSERT INTO (run_raw|process_raw|source_file_raw) |^INSERT INTO stats_raw VALUES\('(program_|record_expand_)"
}
