#!/usr/bin/env bash
# collector_edges.sh - what the collector and the expansion do at the edges
# (the review of issue 23):
#   dupframe  a spool holding the same RECORDS frame twice (a writer killed
#             between appending a chunk and saying so) expands, each event
#             once;
#   writefrom a child killed right after it appended a ring chunk to its
#             spool, before it could mark the chunk written: the chunk
#             says where its write began, and record (here: recover)
#             finds it there and does not append it again;
#   escape    a collector message naming a path with control characters
#             prints them escaped (lib/termesc.h), never raw;
#   longhint  the hint printed when record is gone, for a spool with a
#             long path, is a whole command (its quote closed), never cut;
#   clockbase MAPPROF_CLOCK_BASE that does not name this boot (another
#             host's, forwarded by an MPI launcher) is ignored;
#   pidns     a program in a PID namespace with a /proc of its own, which
#             closed record's pipe, does not conclude that record is gone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
collector=$MAPPROF_BUILD/libmapprof-collector.so
prog=$MAPPROF_BUILD/samples/procs/proc_races
closer=$MAPPROF_BUILD/samples/procs/fd_closer
[ -x "$prog" ] && [ -x "$closer" ] || fail "no '$prog' or '$closer' (hint: make samples)"
dir=$(tmpdir)
cd "$dir"
ulimit -c 0

# ONLY="a b": run only those sections (to see one fail on an older build).
want() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# --- dupframe ------------------------------------------------------------------
if want dupframe; then
	# A spool (MAPPROF_SPOOL: kept as it is), its first RECORDS frame appended again.
	OMP_TOOL_LIBRARIES=$collector MAPPROF_SPOOL=dup.spool "$closer" >/dev/null 2>dup.err || fail "dupframe: $(cat dup.err)"
	python3 - dup.spool <<-'PY' || fail "dupframe: no RECORDS frame in the spool"
	import struct, sys
	p = sys.argv[1]
	b = open(p, 'rb').read()
	off, first = 24, None            # after struct spool_header
	while off + 8 <= len(b):
	    t, n = struct.unpack_from('<II', b, off)
	    if off + 8 + n > len(b):
	        break                    # a frame the kill cut short
	    if t == 1 and n and first is None:   # SPOOL_RECORDS
	        first = b[off:off + 8 + n]
	    off += 8 + n
	if first is None:
	    sys.exit(1)
	with open(p, 'r+b') as f:
	    f.truncate(off)
	    f.seek(off)
	    f.write(first)
	PY
	"$mapprof" recover -o dup.db dup.spool >rec.out 2>rec.err || fail "dupframe: recover: $(cat rec.err)"
	kernels=$(q dup.db "SELECT COUNT(*) FROM kernels")
	assert_eq "$(q dup.db "SELECT COUNT(DISTINCT seq) FROM data_op_raw")" "$(q dup.db "SELECT COUNT(*) FROM data_op_raw")" \
		"dupframe: each data operation once"
	[ "$kernels" -gt 0 ] || fail "dupframe: no kernels"
	echo "ok dupframe: $kernels kernels, none twice"
fi

# --- writefrom ----------------------------------------------------------------
if want writefrom; then
	"$mapprof" record -o wf.db -- "$prog" daemon 30 >/dev/null 2>wf.err &
	rec=$!
	ring=
	for _ in $(seq 100); do
		ring=$(ls wf.db.spool.d/*.ring 2>/dev/null | head -1) || true
		# The child offloaded: its chunk holds records.
		[ -n "$ring" ] && python3 -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); sys.exit(0 if len(b) > 136 and struct.unpack_from("<I", b, 132)[0] else 1)' "$ring" && break
		sleep 0.05
	done
	[ -n "$ring" ] || fail "writefrom: no ring file: $(cat wf.err)"
	child=$(basename "$ring"); child=${child%%.*}
	kill -9 $rec $child 2>/dev/null || true
	wait $rec 2>/dev/null || true
	spool=${ring%.ring}.spool
	# What the child would have left: the chunk in the spool, and where its write began in the chunk.
	python3 - "$ring" "$spool" <<-'PY' || fail "writefrom: no chunk with records in the ring"
	import os, struct, sys
	ring, spool = sys.argv[1], sys.argv[2]
	r = bytearray(open(ring, 'rb').read())
	rec_size = struct.unpack_from('<I', open(spool, 'rb').read(24), 12)[0]
	nchunks, chunk_size = struct.unpack_from('<II', r, 8)
	for i in range(nchunks):
	    at = 128 + i * chunk_size
	    state, n = struct.unpack_from('<II', r, at)
	    if state == 1 and n:
	        size = os.path.getsize(spool)
	        frame = struct.pack('<II', 1, n * rec_size) + bytes(r[at + 24:at + 24 + n * rec_size])
	        open(spool, 'ab').write(frame)
	        struct.pack_into('<q', r, at + 8, size)
	        open(ring, 'r+b').write(r)
	        open('wf.frame', 'wb').write(frame)
	        sys.exit(0)
	sys.exit(1)
	PY
	# Both names recover would give the child taken: its spool is kept, to be looked at.
	: >"wf.$child.db"
	: >"wf.$child.0.db"
	"$mapprof" recover wf.db.spool.d >wfr.out 2>wfr.err || true
	[ -f "$spool" ] || fail "writefrom: the spool is gone: $(cat wfr.err)"
	copies=$(python3 - "$spool" <<-'PY'
	import struct, sys
	b = open(sys.argv[1], 'rb').read()
	frame = open('wf.frame', 'rb').read()
	off, copies = 24, 0
	while off + 8 <= len(b):
	    t, n = struct.unpack_from('<II', b, off)
	    if b[off:off + 8 + n] == frame:
	        copies += 1
	    off += 8 + n
	print(copies)
	PY
	)
	assert_eq "$copies" 1 "writefrom: the chunk in the spool"
	echo "ok writefrom: the chunk appended once"
fi

# --- escape --------------------------------------------------------------------
if want escape; then
	bad=$'esc\033]0;title\007.db'
	: >"$bad"
	OMP_TOOL_LIBRARIES=$collector MAPPROF_OUTPUT=$bad "$prog" none >/dev/null 2>esc.err || true
	grep -q "exists" esc.err || fail "escape: no message: $(cat -v esc.err)"
	grep -q $'\033' esc.err && fail "escape: a raw ESC reached the terminal: $(cat -v esc.err)"
	grep -qF 'esc\x1b]0;title\x07.db' esc.err || fail "escape: not escaped as the CLI does: $(cat -v esc.err)"
	echo "ok escape: $(grep exists esc.err)"
fi

# --- longhint -----------------------------------------------------------------
if want longhint; then
	# Long, but within what SQLite opens (512 bytes).
	long=$dir/$(printf 'd%.0s' $(seq 200))/$(printf 'e%.0s' $(seq 200))
	mkdir -p "$long"
	"$mapprof" record -o "$long/l.db" -- "$prog" loop 3 >/dev/null 2>long.err &
	rec=$!
	sleep 1
	kill -9 $rec || fail "longhint: record ended early: $(cat long.err)"
	wait $rec 2>/dev/null || true
	for _ in $(seq 100); do grep -q "is gone" long.err && break; sleep 0.05; done
	line=$(grep "is gone" long.err) || fail "longhint: no message: $(cat long.err)"
	# The hint: "recover it with: mapprof recover PATH" (quoted for a shell where it must be), whole.
	hint=${line##*recover it with: mapprof recover }
	case $hint in
	"$long/l.db-spool" | "'$long/l.db-spool'" | "'SPOOL'") ;;
	*) fail "longhint: the hint is not a whole command: ...${hint: -80}" ;;
	esac
	sleep 2.5
	echo "ok longhint: ${#line} bytes, the hint whole"
fi

# --- clockbase -----------------------------------------------------------------
if want clockbase; then
	# A base far from this boot's clock: used, it would put the events 58 days away.
	OMP_TOOL_LIBRARIES=$collector MAPPROF_OUTPUT=clk.db MAPPROF_CLOCK=tsc MAPPROF_CLOCK_BASE=1000:5000000000000000 \
		"$prog" none >/dev/null 2>clk.err || true
	begin=$(q clk.db "SELECT MIN(begin_ns) FROM kernels")
	[ "$begin" -lt 1000000000000 ] || fail "clockbase: a base of no known boot was used: kernels begin at $begin ns"
	OMP_TOOL_LIBRARIES=$collector MAPPROF_OUTPUT=clk2.db MAPPROF_CLOCK=tsc \
		MAPPROF_CLOCK_BASE=1000:5000000000000000:00000000-0000-0000-0000-000000000000 "$prog" none >/dev/null 2>>clk.err || true
	begin=$(q clk2.db "SELECT MIN(begin_ns) FROM kernels")
	[ "$begin" -lt 1000000000000 ] || fail "clockbase: another boot's base was used: kernels begin at $begin ns"
	echo "ok clockbase: ignored"
fi

# --- pidns ---------------------------------------------------------------------
if want pidns; then
	if unshare --pid --fork --mount-proc true 2>/dev/null; then
		# A descriptor limit under 1024: the pipe to record is among those the program closes.
		(ulimit -n 1024; timeout 60 "$mapprof" record -o ns.db -- unshare --pid --fork --mount-proc "$closer" >ns.out 2>ns.err) ||
			fail "pidns: $(cat ns.err)"
		grep -q "gone" ns.err && fail "pidns: record was declared gone: $(cat ns.err)"
		assert_eq "$(q ns.db "SELECT COUNT(*) FROM kernels")" 1500 "pidns: the kernels"
		echo "ok pidns: every event recorded"
	else
		echo "note: pidns: cannot make a PID namespace here: not tested"
	fi
fi
