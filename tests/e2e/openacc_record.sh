#!/usr/bin/env bash
# openacc_record.sh - an OpenACC program built with GCC (gcc -fopenacc; no
# GPU here: libgomp's host fallback) recorded by 'mapprof record' through
# the OpenACC Profiling Interface, checked against the independent tracer
# tests/tracer/acc_tracer.c (ACC_PROFLIB), both in separate runs and loaded
# together in one run (record appends the collector to the user's
# ACC_PROFLIB).
#
# Checked: every event the runtime dispatched is a row of acc_event_raw
# (a start/end pair one row), with the valid_bytes the runtime gave; the
# constructs are target rows of the OpenACC kinds; data events (none on
# host fallback) are data_ops and launches kernels, one for one, with no
# bytes where the runtime gave none; the host is device -1 ('openacc:host');
# each construct's source line is its directive's (the call site on the
# stack, through the line table).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tracer=$MAPPROF_BUILD/tests/libacc_tracer.so
[ -f "$tracer" ] || fail "no tracer '$tracer' (hint: make build/tests/libacc_tracer.so)"
command -v gcc >/dev/null || skip "no gcc"
dir=$(tmpdir)
src=$MAPPROF_SRC/samples/openacc/update_loop.c
prog=$dir/update_loop
gcc -fopenacc -g -O1 "$src" -o "$prog" 2>"$dir/cc.err" ||
	skip "gcc cannot build OpenACC programs here: $(head -1 "$dir/cc.err")"

# tracer_ends TRACE: one "event valid_bytes" line per event the collector
# keeps one row for (an end, or a single event), the event's name without
# _start/_end, sorted.
tracer_ends() {
	awk -F'\t' '$1 !~ /_start$/ { e = $1; sub(/_end$/, "", e); print e, $2 }' "$1" | sort
}
db_ends() {
	q "$1" "SELECT event || ' ' || valid_bytes FROM acc_event_raw" | sort
}
# tracer_count TRACE EVENT...: lines of these events
tracer_count() {
	local t=$1
	shift
	awk -F'\t' -v list=" $* " 'index(list, " " $1 " ") { n++ } END { print n + 0 }' "$t"
}

check_run() {  # check_run DB TRACE WHAT
	local db=$1 trace=$2 what=$3
	[ -s "$trace" ] || fail "$what: the tracer saw no event"
	if ! diff <(tracer_ends "$trace") <(db_ends "$db") >"$dir/ends.diff"; then
		fail "$what: events (name, valid_bytes) differ, tracer < > database: $(cat "$dir/ends.diff")"
	fi
	for k in compute_construct enter_data exit_data update; do
		assert_eq "$(q "$db" "SELECT COUNT(*) FROM targets WHERE kind = 'acc_$k'")" \
			"$(tracer_count "$trace" "${k}_end")" "$what: acc_$k constructs"
	done
	assert_eq "$(q "$db" "SELECT COUNT(*) FROM data_ops")" \
		"$(tracer_count "$trace" alloc free create delete enqueue_upload_end enqueue_download_end)" \
		"$what: data operations"
	assert_eq "$(q "$db" "SELECT COUNT(*) FROM kernels")" \
		"$(tracer_count "$trace" enqueue_launch_end)" "$what: launches"
	# Bytes only where the runtime gave them (the tracer's '-': none).
	assert_eq "$(q "$db" "SELECT COALESCE(SUM(bytes), 0) FROM data_ops")" \
		"$(awk -F'\t' '$4 != "-" && $1 ~ /^(alloc|enqueue_upload_end|enqueue_download_end)$/ { s += $4 } END { print s + 0 }' "$trace")" \
		"$what: bytes"
}

# 1. Apart: the tracer's run, then mapprof's.
MAPPROF_TRACER_OUT=$dir/alone.tsv ACC_PROFLIB=$tracer "$prog" >"$dir/native.out" ||
	fail "the program failed under the tracer"
record_prog "$dir/run.db" "$prog" >"$dir/rec.out"
cmp -s "$dir/native.out" "$dir/rec.out" || fail "the program printed other output under mapprof"
check_run "$dir/run.db" "$dir/alone.tsv" "apart"

# Host fallback, as libgomp 12 sends it: constructs, a device_init, the short event info.
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM targets WHERE kind = 'acc_compute_construct'")" 5 \
	"compute constructs of update_loop.c"
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM acc_event_raw WHERE event = 'device_init'")" 1 "device_init"
assert_eq "$(q "$dir/run.db" "SELECT device || ' ' || type FROM devices")" "-1 openacc:host" "the device"
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM targets WHERE device <> -1")" 0 "constructs on the host"
assert_eq "$(q "$dir/run.db" "SELECT substr(runtime, 1, 37) FROM run")" \
	"OpenACC Profiling Interface (libgomp." "the runtime"
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM acc_event_raw WHERE event = 'update'
	AND parent_construct = 'update' AND async = -2 AND async_queue = -2 AND implicit = 0")" 4 \
	"update rows: parent construct, synchronous queue"
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM acc_event_raw WHERE event = 'enter_data'
	AND parent_construct = 'data'")" 1 "the data region's enter_data"

# 2. Together: the user's ACC_PROFLIB (the tracer) and mapprof's collector in one run.
MAPPROF_TRACER_OUT=$dir/together.tsv ACC_PROFLIB=$tracer record_prog "$dir/both.db" "$prog" >/dev/null
check_run "$dir/both.db" "$dir/together.tsv" "together"

# 3. Source lines: each construct's is its directive's, found by the report.
"$MAPPROF_BUILD/mapprof" report -q --no-html --no-json "$dir/run.db" 2>"$dir/report.err" ||
	fail "report failed: $(cat "$dir/report.err")"
line_of() {  # line_of PATTERN: the line of the directive matching PATTERN (the first)
	grep -n -- "$1" "$src" | head -1 | cut -d: -f1
}
want="$(line_of 'acc parallel loop present')
$(line_of 'acc parallel loop async')"
assert_eq "$(q "$dir/run.db" "SELECT DISTINCT line FROM target_sources WHERE kind = 'acc_compute_construct'
	ORDER BY line")" "$want" "the compute constructs' lines"
assert_eq "$(q "$dir/run.db" "SELECT DISTINCT line FROM target_sources WHERE kind = 'acc_update'")" \
	"$(line_of 'acc update self')" "the update's line"
assert_eq "$(q "$dir/run.db" "SELECT MIN(line) FROM target_sources WHERE kind = 'acc_enter_data'")" \
	"$(line_of 'acc enter data')" "the enter data's line"
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM target_sources WHERE file NOT LIKE '%update_loop.c'
	OR line IS NULL OR line <= 0")" 0 "constructs without a source line"
# 4. A GCC OpenMP program loads ACC_PROFLIB too and sends no OpenACC event:
# the collector stays out of it, as it did before it spoke OpenACC.
cat >"$dir/gomp.c" <<'C'
#include <stdio.h>
int main(void)
{
	double a[64];
	for (int i = 0; i < 64; i++)
		a[i] = i;
#pragma omp target map(tofrom: a)
	for (int i = 0; i < 64; i++)
		a[i] *= 2;
	printf("%g\n", a[63]);
	return 0;
}
C
gcc -fopenmp "$dir/gomp.c" -o "$dir/gomp" || fail "gcc -fopenmp cannot build a target region"
"$MAPPROF_BUILD/mapprof" record -f -o "$dir/gomp.db" -- "$dir/gomp" >/dev/null 2>"$dir/gomp.err" || true
assert_eq "$(q "$dir/gomp.db" "SELECT COUNT(*) FROM run WHERE runtime LIKE 'OpenACC%'")" 0 \
	"a GCC OpenMP program recorded as an OpenACC one"
assert_eq "$(q "$dir/gomp.db" "SELECT COUNT(*) FROM acc_event_raw")" 0 "OpenACC events of an OpenMP program"

echo "ok: $(tracer_ends "$dir/alone.tsv" | wc -l) OpenACC events recorded as the tracer saw them"
