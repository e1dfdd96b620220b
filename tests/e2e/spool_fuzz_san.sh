#!/usr/bin/env bash
# spool_fuzz_san.sh - tests/e2e/spool_fuzz.sh against a mapprof built with
# SANITIZE=address,undefined, so that every 'make check' fuzzes the spool's
# expansion ('mapprof recover', and the expansion 'mapprof record' does)
# under the sanitizers even when the suite's own build is plain: any ASan,
# LSan or UBSan report fails it.  The sanitized mapprof is the one
# tests/e2e/report_fuzz_san.sh builds in BUILD/san (built here too when this
# test runs first), the build dir 'make fuzz' uses too.  FUZZ_SAN_CASES cases
# (default 200) from seed 100001, seeds the plain run does not take.
# When the suite's build is itself sanitized, spool_fuzz.sh already is this
# test, and this one only says so.
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip "make is missing (apt-get install make)"
if nm -D "$MAPPROF_BUILD/mapprof" 2>/dev/null | grep -q '__asan_init'; then
	echo "the suite's mapprof is sanitized: spool_fuzz.sh is the sanitized fuzz run"
	exit 0
fi
san=$MAPPROF_BUILD/san
log=$(tmpdir)/build.log
make -C "$MAPPROF_SRC" --no-print-directory -j2 SANITIZE=address,undefined B="$san" "$san/mapprof" \
	>"$log" 2>&1 || fail "cannot build a sanitized mapprof in '$san': $(tail -n 20 "$log")"
nm -D "$san/mapprof" | grep -q '__asan_init' || fail "'$san/mapprof' is not built with ASan"
MAPPROF_BIN=$san/mapprof FUZZ_CASES=${FUZZ_SAN_CASES:-200} FUZZ_SEED=${FUZZ_SAN_SEED:-100001} \
	FUZZ_OUT=$MAPPROF_BUILD/spool_fuzz_san bash "$MAPPROF_SRC/tests/e2e/spool_fuzz.sh"
