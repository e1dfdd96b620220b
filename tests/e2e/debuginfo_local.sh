#!/usr/bin/env bash
# debuginfo_local.sh - call sites are resolved from debug information on
# this machine only, unless MAPPROF_DEBUGINFOD=1: a program built without
# -g makes 'mapprof record' load neither libdebuginfod nor libcurl (libdw's
# standard search would, and would ask the servers DEBUGINFOD_URLS names,
# here a closed local port), while MAPPROF_DEBUGINFOD=1 does load it (a
# static mapprof: debuginfod-find, which it runs, loads it); and a
# program whose debug information was moved to a separate file named by a
# .gnu_debuglink section still gets its call sites' file and line.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v objcopy >/dev/null || skip "no objcopy (apt-get install binutils)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
cd "$t" || fail "cannot enter $t"
cp "$MAPPROF_SRC/samples/round_trip.c" .
ompcc -O1 -o nodebug round_trip.c || fail "cannot build round_trip.c without -g"

# ld.so says which libraries each process loads (LD_DEBUG=files): record's own lines carry its pid.
loads() {   # OUT ENV...: record ./nodebug with ENV, its loader's lines in OUT
	local out=$1
	shift
	env "$@" DEBUGINFOD_URLS=http://127.0.0.1:9 LD_DEBUG=files LD_DEBUG_OUTPUT="$t/ld" \
		"$m" record -f -o "$t/n.db" -- ./nodebug >/dev/null 2>"$t/err" || fail "record failed: $(cat "$t/err")"
	cat "$t"/ld.* >"$out"
	rm -f "$t"/ld.*
}
loads local.txt
# (mapprof may link libdw statically: libc is loaded either way)
grep -q 'file=libc\.so' local.txt || fail "LD_DEBUG=files showed no library loads: the check proves nothing"
! grep -q 'libdebuginfod\|libcurl' local.txt ||
	fail "record of a program without -g loaded: $(grep -o 'file=lib\(debuginfod\|curl\)[^ ]*' local.txt | sort -u | tr '\n' ' ')"
loads remote.txt MAPPROF_DEBUGINFOD=1
grep -q 'file=libdebuginfod' remote.txt || fail "MAPPROF_DEBUGINFOD=1 did not load libdebuginfod"
echo "ok: no debuginfod without MAPPROF_DEBUGINFOD=1 (and it is loaded with it)"

# Debug information in a separate file, named by .gnu_debuglink.
ompcc -g -O1 -o split round_trip.c || fail "cannot build round_trip.c with -g"
objcopy --only-keep-debug split split.debug && objcopy --strip-debug split &&
	objcopy --add-gnu-debuglink=split.debug split || fail "cannot split the debug information"
"$m" record -f -o s.db -- ./split >/dev/null 2>err || fail "record of the split program: $(cat err)"
"$m" report -q --no-html --json s.json s.db 2>err || fail "report: $(cat err)"
lines=$(q s.db "SELECT COUNT(*) FROM location WHERE line > 0 AND file LIKE '%round_trip.c'")
[ "$lines" -ge 1 ] || fail "no call site resolved to round_trip.c through its .gnu_debuglink file"
echo "ok: $lines call site(s) resolved through a .gnu_debuglink file"
