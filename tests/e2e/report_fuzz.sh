#!/usr/bin/env bash
# report_fuzz.sh - 'mapprof report' on damaged recordings: real recordings of
# the samples, each case one copy damaged by tests/fuzz/mutate.py (byte flips,
# truncation, random UPDATEs to NULL/huge/negative values, deleted rows,
# dropped tables and views).  Every case must end in one of two ways:
#   - exit 0, a JSON report that parses and an HTML report that is not empty;
#   - exit 4 (the run's status says the recording is incomplete), the same
#     two reports, and the warning that says so on stderr;
#   - exit 5 (the findings could not be stored in the damaged file), the
#     same two reports, and the warning that says so on stderr;
#   - exit 3 with a 'mapprof: error:' line on stderr.
# Anything else fails: a crash (a signal), a hang (over 20 s), another exit
# status, an error without its message, a report missing or unreadable, and
# any sanitizer report (ASan, LSan, UBSan) when mapprof was built with
# SANITIZE=address,undefined ('make fuzz', tests/e2e/report_fuzz_san.sh).
# Against a plain build it still catches crashes, hangs and bad outcomes.
#
# FUZZ_CASES cases (default 300) from seed FUZZ_SEED (default 1); MAPPROF_BIN
# is the mapprof under test (default the build's).  Failures are grouped by
# signature; the recordings and each group's first damaged copy are kept in
# FUZZ_OUT (default BUILD/report_fuzz) with the line that replays them:
#   FUZZ_BASES=BUILD/report_fuzz FUZZ_SEED=N FUZZ_CASES=1 bash tests/e2e/report_fuzz.sh
. "$(dirname "$0")/lib.sh"

bin=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
cases=${FUZZ_CASES:-300}
first=${FUZZ_SEED:-1}
out=${FUZZ_OUT:-$MAPPROF_BUILD/report_fuzz}
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON' (apt-get install python3)"
[ -x "$bin" ] || fail "no mapprof '$bin' (hint: make)"
dir=$(tmpdir)

# The recordings: made once (or taken from FUZZ_BASES), some also reported
# once so that the report's own tables are there to damage too.
bases=()
if [ -n "${FUZZ_BASES:-}" ]; then
	for f in "$FUZZ_BASES"/base-*.db; do [ -f "$f" ] && bases+=("$f"); done
	[ ${#bases[@]} -gt 0 ] || fail "no recordings base-*.db in '$FUZZ_BASES'"
else
	for s in round_trip two_devices nowait_threads offload_in_library duplicate_transfer; do
		prog=$MAPPROF_BUILD/samples/$s
		[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
		"$MAPPROF_BUILD/mapprof" record -o "$dir/base-$s.db" -- "$prog" >/dev/null 2>"$dir/rec.err" ||
			fail "cannot record $s: $(cat "$dir/rec.err")"
	done
	for s in round_trip two_devices; do
		cp "$dir/base-$s.db" "$dir/base-$s-reported.db"
		"$MAPPROF_BUILD/mapprof" report -q --no-json --no-html "$dir/base-$s-reported.db" 2>"$dir/rec.err" ||
			fail "cannot report $s: $(cat "$dir/rec.err")"
	done
	bases=("$dir"/base-*.db)  # in the order FUZZ_BASES takes them
fi

. "$MAPPROF_SRC/tests/e2e/lib_fuzz.sh"
fuzz_init
nreport=0 nerror=0
for seed in $(seq "$first" $((first + cases - 1))); do
	base=${bases[$((seed % ${#bases[@]}))]}
	c=$dir/case
	rm -rf "$c"
	mkdir -p "$c"
	what=$("$PYTHON" "$MAPPROF_SRC/tests/fuzz/mutate.py" "$seed" "$base" "$c/m.db") ||
		fail "mutate.py failed (seed $seed, $base)"
	fuzz_run "$c" "$bin" report -q --json "$c/r.json" --html "$c/r.html" "$c/m.db"
	if [ -n "$sig" ]; then
		: # named by fuzz_run: a sanitizer report, a hang or a crash
	elif [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || [ "$rc" -eq 5 ]; then
		if ! "$PYTHON" -c 'import json, sys; json.load(open(sys.argv[1]))' "$c/r.json" 2>/dev/null; then
			sig="exit $rc without a readable JSON report"
		elif [ ! -s "$c/r.html" ]; then
			sig="exit $rc without an HTML report"
		elif [ "$rc" -eq 4 ] && ! grep -q 'the recording is incomplete' "$c/err"; then
			sig="exit 4 without saying the recording is incomplete"
		elif [ "$rc" -eq 5 ] && ! grep -q 'findings not stored\|findings were not stored' "$c/err"; then
			sig="exit 5 without saying the findings were not stored"
		fi
	elif [ "$rc" -eq 3 ]; then
		grep -q '^mapprof: error: ' "$c/err" || sig="exit 3 without a 'mapprof: error:' line"
	else
		sig="exit $rc: $(head -n 1 "$c/err")"
	fi
	if [ -z "$sig" ]; then
		if [ "$rc" -ne 3 ]; then nreport=$((nreport + 1)); else nerror=$((nerror + 1)); fi
		continue
	fi
	fuzz_failed "$seed" "$(basename "$base"): $what" db "$c/m.db" "$c/err" "${bases[@]}"
done

echo "$cases damaged recordings: $nreport reports, $nerror clear errors, $nfail failed"
if [ "$nfail" -gt 0 ]; then
	fuzz_summary "$cases"
	echo "damaged copies (seed-N.db, seed-N.err) and recordings in $out; replay one with:"
	echo "  ${MAPPROF_BIN:+MAPPROF_BIN=$bin }FUZZ_BASES=$out FUZZ_SEED=N FUZZ_CASES=1 bash tests/e2e/report_fuzz.sh"
	echo "or run mapprof on the copy: $bin report -q --json x.json --html x.html $out/seed-N.db"
	fail "$nfail of $cases damaged recordings were not a report or a clear error"
fi
