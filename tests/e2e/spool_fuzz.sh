#!/usr/bin/env bash
# spool_fuzz.sh - 'mapprof recover' on damaged spools: real spools of the
# samples (the collector loaded by hand keeps its spool; one timed with the
# timestamp counter where there is one), each case one copy damaged by
# tests/fuzz/mutate_spool.py (byte flips, truncations, zero-length and
# oversized frames, the frames of a second process interleaved, duplicated
# frames, extreme numbers, bad lengths and strings).  Half the cases expand
# into a new database (-o NEW), half into the database 'mapprof record'
# leaves while the program runs (run 'recording', no command yet): the
# expansion record itself does.  Every case must end in one of two ways:
#   - exit 0, a database SQLite finds sound holding exactly the events of
#     the spool's whole frames, and the spool removed;
#   - exit 3 with a 'mapprof: error:' line, and nothing half-written: no new
#     database, the recording's database without an event.
# Anything else fails: a crash (a signal), a hang (over 20 s), another exit
# status, and any sanitizer report (ASan, LSan, UBSan) when mapprof was
# built with SANITIZE=address,undefined ('make fuzz',
# tests/e2e/spool_fuzz_san.sh).
#
# FUZZ_CASES cases (default 150) from seed FUZZ_SEED (default 1); MAPPROF_BIN
# is the mapprof under test (default the build's).  Failures are grouped by
# signature; the seed spools and each group's first damaged copy are kept in
# FUZZ_OUT (default BUILD/spool_fuzz) with the line that replays them:
#   FUZZ_BASES=BUILD/spool_fuzz FUZZ_SEED=N FUZZ_CASES=1 bash tests/e2e/spool_fuzz.sh
. "$(dirname "$0")/lib.sh"

bin=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
cases=${FUZZ_CASES:-150}
first=${FUZZ_SEED:-1}
out=${FUZZ_OUT:-$MAPPROF_BUILD/spool_fuzz}
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON' (apt-get install python3)"
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
[ -x "$bin" ] || fail "no mapprof '$bin' (hint: make)"
dir=$(tmpdir)

# The seeds: spools of real runs, and the database of a recording under way.
bases=()
if [ -n "${FUZZ_BASES:-}" ]; then
	for f in "$FUZZ_BASES"/base-*.spool; do [ -f "$f" ] && bases+=("$f"); done
	[ ${#bases[@]} -gt 0 ] || fail "no spools base-*.spool in '$FUZZ_BASES'"
	cp "$FUZZ_BASES/recording.db" "$dir/recording.db" || fail "no recording.db in '$FUZZ_BASES'"
else
	clock=monotonic
	[ "$(uname -m)" = x86_64 ] && clock=tsc
	for s in round_trip two_devices nowait_threads offload_in_library duplicate_transfer; do
		prog=$MAPPROF_BUILD/samples/$s
		[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
		c=monotonic
		[ "$s" = two_devices ] || [ "$s" = nowait_threads ] && c=$clock
		OMP_TOOL_LIBRARIES=$MAPPROF_BUILD/libmapprof-collector.so MAPPROF_CLOCK=$c \
			MAPPROF_CLOCK_BASE= MAPPROF_SPOOL="$dir/base-$s.spool" "$prog" >/dev/null 2>"$dir/rec.err" ||
			fail "cannot record $s: $(cat "$dir/rec.err")"
		[ -s "$dir/base-$s.spool" ] || fail "no spool from $s: $(cat "$dir/rec.err")"
	done
	# What 'mapprof record' leaves while the program runs: the run row only.
	"$MAPPROF_BUILD/mapprof" record -o "$dir/recording.db" -- true 2>"$dir/rec.err" ||
		fail "cannot record 'true': $(cat "$dir/rec.err")"
	sqlite3 "$dir/recording.db" "UPDATE run_raw SET status = 'recording', status_detail = NULL;
		DELETE FROM meta WHERE key = 'deletes_paired'" || fail "cannot make recording.db"
	bases=("$dir"/base-*.spool)
fi

events() {
	sqlite3 -batch -noheader "$1" "SELECT (SELECT COUNT(*) FROM data_op_raw) +
		(SELECT COUNT(*) FROM kernel_raw) + (SELECT COUNT(*) FROM target_raw)" 2>&1
}

. "$MAPPROF_SRC/tests/e2e/lib_fuzz.sh"
fuzz_init
nok=0 nerror=0
mkdir -p "$dir/cases"
"$PYTHON" "$MAPPROF_SRC/tests/fuzz/mutate_spool.py" "$first" "$cases" "$dir/cases" "${bases[@]}" \
	>"$dir/cases.txt" || fail "mutate_spool.py failed (seeds $first..$((first + cases - 1)))"
while IFS=$'\t' read -r seed want what; do
	base=${bases[$((seed % ${#bases[@]}))]}
	c=$dir/case
	rm -rf "$c"
	mkdir -p "$c"
	mv "$dir/cases/$seed.spool" "$c/m.spool"
	cp "$c/m.spool" "$c/keep.spool"
	if [ $((seed % 2)) -eq 0 ]; then
		db=$c/new.db
	else
		db=$c/rec.db
		cp "$dir/recording.db" "$db"
	fi
	fuzz_run "$c" "$bin" recover -o "$db" "$c/m.spool"
	if [ -n "$sig" ]; then
		: # named by fuzz_run: a sanitizer report, a hang or a crash
	elif [ "$rc" -eq 0 ]; then
		got=$(events "$db")
		if [ "$(sqlite3 -batch -noheader "$db" 'PRAGMA quick_check' 2>&1)" != ok ]; then
			sig="exit 0 with a database SQLite finds unsound"
		elif [ "$got" != "$want" ]; then
			sig="exit 0 with N events in the database, not the N of the spool's whole frames"
			echo "seed $seed: $got events, want $want" >>"$c/err"
		elif [ -e "$c/m.spool" ]; then
			sig="exit 0 and the spool is still there"
		fi
	elif [ "$rc" -eq 3 ]; then
		if ! grep -q '^mapprof: error: ' "$c/err"; then
			sig="exit 3 without a 'mapprof: error:' line"
		elif [ "$db" = "$c/new.db" ] && [ -e "$db" ]; then
			sig="exit 3 and a new database left"
		elif [ "$db" = "$c/rec.db" ] && [ "$(events "$db")" != 0 ]; then
			sig="exit 3 and events left in the recording's database"
		elif ! cmp -s "$c/m.spool" "$c/keep.spool"; then
			sig="exit 3 and the spool changed or removed"
		fi
	else
		sig="exit $rc: $(head -n 1 "$c/err")"
	fi
	if [ -z "$sig" ]; then
		if [ "$rc" -eq 0 ]; then nok=$((nok + 1)); else nerror=$((nerror + 1)); fi
		continue
	fi
	fuzz_failed "$seed" "$(basename "$base"): $what" spool "$c/keep.spool" "$c/err" "${bases[@]}" "$dir/recording.db"
done <"$dir/cases.txt"

echo "$cases damaged spools: $nok databases, $nerror clear errors, $nfail failed"
if [ "$nfail" -gt 0 ]; then
	fuzz_summary "$cases"
	echo "damaged copies (seed-N.spool, seed-N.err) and seeds in $out; replay one with:"
	echo "  ${MAPPROF_BIN:+MAPPROF_BIN=$bin }FUZZ_BASES=$out FUZZ_SEED=N FUZZ_CASES=1 bash tests/e2e/spool_fuzz.sh"
	fail "$nfail of $cases damaged spools were not a whole database or a clear error"
fi
[ "$nok" -gt 0 ] || fail "no case made a database: the fuzz only tests the errors"
