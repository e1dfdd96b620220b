#!/usr/bin/env bash
# debuginfod_remote.sh - MAPPROF_DEBUGINFOD=1 fetches a module's debug
# information from the debuginfod servers DEBUGINFOD_URLS names, and without
# it nothing is asked.  A real server (elfutils' debuginfod, on a local port)
# serves the debug information of a program whose own was stripped (no
# .gnu_debuglink: the build id is the only way to it).  Its call sites then
# carry the compilation directory and the source path, which only DWARF has
# (the OpenMP runtime's ident strings give file and line alone).  A static
# mapprof asks through debuginfod-find, a dynamic one through libdw's client.
. "$(dirname "$0")/lib.sh"
command -v sqlite3 >/dev/null || skip "no sqlite3 (apt-get install sqlite3)"
command -v objcopy >/dev/null || skip "no objcopy (apt-get install binutils)"
command -v debuginfod >/dev/null && command -v debuginfod-find >/dev/null ||
	skip "no debuginfod server or debuginfod-find (apt-get install debuginfod)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof
cd "$t" || fail "cannot enter $t"
cp "$MAPPROF_SRC/samples/round_trip.c" .
ompcc -g -O1 -o stripped round_trip.c || fail "cannot build round_trip.c with -g"
mkdir srv && objcopy --only-keep-debug stripped srv/stripped.debug && objcopy --strip-debug stripped ||
	fail "cannot split the debug information"
bid=$(readelf -n stripped | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || fail "the program has no build id"

# The server, on the first free port of a few; stopped when the test ends
# (and by timeout, should the test end otherwise: lib.sh owns the EXIT trap).
server=
stop_server() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; }
for port in $((20000 + RANDOM % 20000)) $((20000 + RANDOM % 20000)) $((20000 + RANDOM % 20000)); do
	timeout 300 debuginfod -p "$port" -d "$t/index.sqlite" -F "$t/srv" >"$t/server.log" 2>&1 &
	server=$!
	export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$t/cache DEBUGINFOD_TIMEOUT=10
	for _ in $(seq 60); do
		debuginfod-find debuginfo "$bid" >/dev/null 2>&1 && break 2
		rm -rf "$t/cache"   # the client remembers a miss (cache_miss_s): not yet scanned
		kill -0 "$server" 2>/dev/null || break
		sleep 0.5
	done
	stop_server
	server=
done
[ -n "$server" ] || fail "the debuginfod server never served the program's debug information: $(tail -5 "$t/server.log")"
rm -rf "$t/cache"

record_report() {   # DB ENV...: record ./stripped and report it, with ENV
	local db=$1
	shift
	env "$@" "$m" record -f -o "$db" -- ./stripped >/dev/null 2>"$t/err" ||
		{ stop_server; fail "record failed: $(cat "$t/err")"; }
	env "$@" "$m" report -q --no-html --no-json "$db" 2>"$t/err" || { stop_server; fail "report failed: $(cat "$t/err")"; }
}
paths() { q "$1" "SELECT COUNT(*) FROM location WHERE source_path LIKE '%/round_trip.c' AND comp_dir <> ''"; }

record_report local.db
[ ! -e "$t/cache/$bid" ] || { stop_server; fail "the server was asked without MAPPROF_DEBUGINFOD=1"; }
n=$(paths local.db)
[ "$n" = 0 ] || { stop_server; fail "$n call site(s) with DWARF's source path without MAPPROF_DEBUGINFOD"; }

record_report remote.db MAPPROF_DEBUGINFOD=1
stop_server
[ -e "$t/cache/$bid" ] || fail "MAPPROF_DEBUGINFOD=1 did not fetch the debug information (cache: $(ls "$t/cache" 2>&1))"
n=$(paths remote.db)
[ "$n" -ge 1 ] || fail "no call site got its source path from the fetched debug information"
echo "ok: MAPPROF_DEBUGINFOD=1 fetched build id $bid from a debuginfod server: $n call site(s) with DWARF's source path; none without it"
