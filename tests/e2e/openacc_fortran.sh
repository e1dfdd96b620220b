#!/usr/bin/env bash
# openacc_fortran.sh - a Fortran OpenACC program (gfortran -fopenacc, host
# fallback: samples/openacc/update_loop_f.f90) recorded by 'mapprof record':
# every event the independent acc_prof tracer sees is in acc_event_raw, and
# each construct's source line is its '!$acc' directive's in the .f90 file,
# quoted in the snippets.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tracer=$MAPPROF_BUILD/tests/libacc_tracer.so
[ -f "$tracer" ] || fail "no tracer '$tracer' (hint: make build/tests/libacc_tracer.so)"
command -v gfortran >/dev/null || skip "no gfortran (Debian's gfortran; 'make test-deps' installs it)"
dir=$(tmpdir)
src=$MAPPROF_SRC/samples/openacc/update_loop_f.f90
prog=$dir/update_loop_f
gfortran -fopenacc -g -O1 "$src" -o "$prog" 2>"$dir/cc.err" ||
	fail "gfortran -fopenacc cannot build $(basename "$src"): $(cat "$dir/cc.err")"

MAPPROF_TRACER_OUT=$dir/trace.tsv ACC_PROFLIB=$tracer "$prog" >/dev/null || fail "the program failed under the tracer"
record_prog "$dir/run.db" "$prog" >/dev/null
tracer_ends=$(awk -F'\t' '$1 !~ /_start$/ { e = $1; sub(/_end$/, "", e); print e, $2 }' "$dir/trace.tsv" | sort)
assert_eq "$(q "$dir/run.db" "SELECT event || ' ' || valid_bytes FROM acc_event_raw" | sort)" "$tracer_ends" \
	"events (name, valid_bytes), database vs. tracer"
[ -n "$tracer_ends" ] || fail "the tracer saw no event"

"$MAPPROF_BUILD/mapprof" report -q --no-html --no-json "$dir/run.db" 2>"$dir/report.err" ||
	fail "report failed: $(cat "$dir/report.err")"
line_of() { grep -n -- "$1" "$src" | head -1 | cut -d: -f1; }
for d in 'acc enter data:acc_enter_data' 'acc parallel loop:acc_compute_construct' 'acc update self:acc_update' \
	'acc exit data:acc_exit_data'; do
	assert_eq "$(q "$dir/run.db" "SELECT DISTINCT line FROM target_sources WHERE kind = '${d#*:}'")" \
		"$(line_of "${d%%:*}")" "the line of ${d#*:}"
done
assert_eq "$(q "$dir/run.db" "SELECT COUNT(*) FROM target_sources WHERE file NOT LIKE '%update_loop_f.f90'")" 0 \
	"constructs outside the .f90 file"
# The directive's own text is quoted from the .f90 source.
q "$dir/run.db" "SELECT text FROM snippet WHERE file LIKE '%update_loop_f.f90'" | grep -q '!\$acc update self(b)' ||
	fail "no snippet quotes the update directive"
echo "ok: the Fortran OpenACC program's $(wc -l <<<"$tracer_ends") events and their .f90 lines"
