# lib_fuzz.sh - what the fuzz tests (report_fuzz.sh, spool_fuzz.sh) share:
# running mapprof on one damaged case under the sanitizers' logs, naming how
# it went wrong, grouping failures by signature and keeping each group's
# first damaged copy, and the summary.  Sourced after lib.sh; the caller
# sets 'dir' (its temporary directory) and 'out' (where failures are kept).
#
#   fuzz_init                      the counters and the sanitizers' log dir
#   fuzz_run CASEDIR CMD...        CMD under a 20 s timeout, stdout and
#                                  stderr in CASEDIR/out and /err (with any
#                                  sanitizer log); sets 'rc' and 'sig' (a
#                                  sanitizer report, a hang or a crash; empty
#                                  otherwise: the caller judges the rest)
#   fuzz_failed SEED WHAT EXT CASEFILE ERRFILE [FIRST...]
#                                  count the failure 'sig'; the first of its
#                                  kind keeps CASEFILE as seed-SEED.EXT and
#                                  ERRFILE, the first failure of all FIRST
#                                  (the cases' sources) too
#   fuzz_summary CASES             the failures, grouped (prints nothing
#                                  when there were none)

fuzz_san='runtime error:|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer'

fuzz_init() {
	declare -gA count seen
	sigs=()
	nfail=0
	mkdir -p "$dir/san"
}

fuzz_run() {
	local c=$1
	shift
	rm -f "$dir"/san/*
	rc=0
	ASAN_OPTIONS=detect_leaks=1:log_path=$dir/san/asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$dir/san/ubsan \
		timeout 20 "$@" >"$c/out" 2>"$c/err" || rc=$?
	cat "$dir"/san/* >>"$c/err" 2>/dev/null
	sig=
	if grep -qE "$fuzz_san" "$c/err"; then
		# The report's first line and the first frame in mapprof's own code.
		sig="sanitizer: $(grep -m1 -oE "(runtime error:|ERROR: [A-Za-z]+Sanitizer:|SUMMARY: [A-Za-z]+Sanitizer:).*" "$c/err" |
			sed -E 's/0x[0-9a-f]+/ADDR/g; s/-?[0-9]+/N/g') at $(grep -m1 -oE ' in [a-z_0-9]+ ([^ ]*/)?(cli|db|report|lib)/[a-z_0-9]+\.c:[0-9]+' "$c/err" |
			sed -E 's|^ in ||; s| ([^ ]*/)?((cli\|db\|report\|lib)/[a-z_0-9]+\.c)| \2|')"
	elif [ "$rc" -eq 124 ]; then
		sig="hang: over 20 s"
	elif [ "$rc" -ge 128 ]; then
		sig="crash: exit $rc (signal $((rc - 128)))"
	fi
}

fuzz_failed() {
	local seed=$1 what=$2 ext=$3 casefile=$4 errfile=$5
	shift 5
	nfail=$((nfail + 1))
	# Numbers vary between cases that fail the same way.
	sig=$(printf '%s' "$sig" | sed -E "s/'[^']*'/'...'/g" | cut -c 1-300)
	if [ -z "${seen[$sig]:-}" ]; then
		sigs+=("$sig")
		seen[$sig]="seed $seed ($what)"
		if [ ${#sigs[@]} -eq 1 ] && [ -z "${FUZZ_BASES:-}" ]; then
			rm -rf "$out"
			mkdir -p "$out"
			cp "$@" "$out/"
		fi
		mkdir -p "$out"
		cp "$casefile" "$out/seed-$seed.$ext"
		cp "$errfile" "$out/seed-$seed.err"
	fi
	count[$sig]=$((${count[$sig]:-0} + 1))
}

fuzz_summary() {
	local s
	[ "$nfail" -gt 0 ] || return 0
	echo "$nfail of $1 cases failed, ${#sigs[@]} distinct ways:"
	for s in "${sigs[@]}"; do
		echo "  ${count[$s]} x $s"
		echo "      first: ${seen[$s]}"
	done
}
