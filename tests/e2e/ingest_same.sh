#!/usr/bin/env bash
# ingest_same.sh - the spool's expansion (db/ingest/ingest.c) pairs deletes as it
# reads the events, and inserts them through a virtual table over the
# records (issue 29, "events at SQLite's speed"); the database must be the
# one the sorting expansion before it made, row for row:
#   - three synthetic spools (a generator below: three threads, two clock
#     pairs, async kinds, double deletes, deletes of nothing): chunks in
#     order, chunks written a little late (the expansion waits for them),
#     and threads sharing addresses with ops that end out of order plus an
#     end time that overflows (the expansion must fall back to sorting).  Each expanded by 'mapprof recover': every
#     table's rows must hash to what mapprof 90f4098 (before this change)
#     made of the same spool, and delete_pair_raw must hold exactly the pairs
#     the rule gives, written here as a window query (docs/database.md);
#   - real recordings of a four-thread offload loop, the ring at its default
#     size and at two chunks (the collector then writes chunks itself, out
#     of the drain's order): the events counted, the pairs the rule's, and
#     the expansion's time in stats (record_expand_ns, record_expand_cpu_ns)
#     for 'make bench'.
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON' (apt-get install python3)"
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# gen.py MODE OUT: a synthetic spool (db/spool/spool.h); the same bytes for the same MODE.
cat >gen.py <<'PY'
import random, struct, sys

mode, out = sys.argv[1], sys.argv[2]
rng = random.Random({'inorder': 1, 'late': 2, 'shared': 3, 'big': 4, 'bigshuffled': 4}[mode])
REC = struct.Struct('<BBBbiiiI4xQQQQqqQQQ')  # struct rec
assert REC.size == 96


def frame(t, payload):
    return struct.pack('<II', t, len(payload)) + payload


def fields(fmt, *vals):
    b = b''
    for f, v in zip(fmt, vals):
        if f == 'i':
            b += struct.pack('<q', v)
        else:
            s = v.encode()
            b += struct.pack('<I', len(s)) + s + b'\0'
    return b


START_NS, T0 = 5_000_000_000, 10_000_000
frames = [frame(2, fields('ssississ', '["gen"]', '/', 42, 'host', '2026-01-01T00:00:00Z', START_NS,
                          'synthetic', '0.0')),
          frame(11, fields('ii', T0, START_NS + 1000)),
          frame(6, fields('isii', 0, 'x86_64', 5, -1))]
HOST, DEV = 1, 0
nthreads, regions, chunk = 3, 20000 if mode.startswith('big') else 1500, 50
seq, tick = 0, T0 + 100
pools = {t: [0x7f0000000000 + 0x1000 * (t * 8 + k) for k in range(3)] for t in range(nthreads)}
shared = [0x7f0000100000 + 0x1000 * k for k in range(4)]
live = {t: [] for t in range(nthreads)}
bufs = {t: [] for t in range(nthreads)}
order = []  # (thread, RECORDS payload) in the order the chunks filled


def emit(t, typ, kind, src_dev, dst_dev, src, dst, nbytes, b, e, target, has_hash=0, h=0):
    global seq
    seq += 1
    bufs[t].append(REC.pack(typ, kind, has_hash, -1 if typ != 1 else 0, t, src_dev, dst_dev, 1, seq, src,
                            dst, nbytes, b, e, h, 0x401000 + t, target))
    if len(bufs[t]) == chunk:
        order.append((t, b''.join(bufs[t])))
        bufs[t] = []


target = 0
# 'shared': threads share addresses and an op may end after the next one
# began (end order is not seq order).
span = 60 if mode == 'shared' else 5
for step in range(regions * nthreads):
    t = rng.randrange(nthreads)
    tick += rng.randrange(10, 40)
    pool = shared if mode == 'shared' else pools[t]
    r = rng.random()
    if r < 0.45 or not live[t]:
        a = rng.choice(pool)
        kind = rng.choice([1, 1, 1, 17])
        emit(t, 1, kind, HOST, DEV, 0x600000 + 8 * t, a, 64, tick, tick + rng.randrange(0, span), target + 1)
        live[t].append(a)
        target += 1
        emit(t, 3, 1, DEV, DEV, 0, 0, 0, tick + 6, tick + 9, target)
        emit(t, 1, 2, HOST, DEV, 0x600000, a, 64, tick + 10, tick + 12, target, 1, rng.getrandbits(63))
    elif r < 0.9:
        a = live[t].pop(rng.randrange(len(live[t])))
        emit(t, 1, rng.choice([4, 4, 4, 20]), DEV, HOST, a, 0, 64, tick, tick + rng.randrange(0, span), target)
        if rng.random() < 0.1:  # deleted twice: only the first is paired
            emit(t, 1, 4, DEV, HOST, a, 0, 64, tick + 1, tick + 7, target)
        emit(t, 2, 0, DEV, DEV, 0, 0, 0, tick + 8, tick + 20, target)
    else:  # a delete of nothing allocated there
        emit(t, 1, 4, DEV, HOST, rng.choice(pool) + 0x80, 0, 64, tick, tick + 3, 0)
if mode == 'shared':
    # a damaged time: begin_ns + dur_ns overflows (SQLite makes it a real),
    # which only the sorting pass orders as SQLite does
    emit(0, 1, 1, HOST, DEV, 0x600000, shared[0], 64, 2**62, -2**62, 0)
for t in range(nthreads):
    if bufs[t]:
        order.append((t, b''.join(bufs[t])))
if mode == 'late':
    # chunks written a little late: neighbours swapped, the last one first
    for i in range(0, len(order) - 1, 3):
        order[i], order[i + 1] = order[i + 1], order[i]
    order.insert(0, order.pop())
elif mode == 'shared':
    rng.shuffle(order)
elif mode == 'bigshuffled':
    # big's records, their chunks in any order: far more than the
    # expansion's window of 65,536 records waits for
    random.Random(5).shuffle(order)
frames += [frame(1, p) for _, p in order]
frames += [frame(11, fields('ii', tick + 1000, START_NS + 1000 + (tick + 1000 - T0) * 3 // 2)),
           frame(5, fields('ii', (tick - T0) * 3 // 2 + 2000, 0))]
with open(out, 'wb') as f:
    f.write(b'MPSPOOL\0' + struct.pack('<IIq', 2, 96, 42) + b''.join(frames))
PY

# The pairs the rule gives (db/ingest/finish.c): in the stream of one (device,
# address) ordered by end, allocations first on ties, then seq, a delete
# right after an allocation frees it.  Prints "expected got missing extra".
pairs_check() {
	q "$1" "WITH items AS (
	  SELECT seq, kind IN (4, 20) AS is_delete,
	         CASE WHEN kind IN (4, 20) THEN src_dev ELSE dst_dev END AS dev,
	         CASE WHEN kind IN (4, 20) THEN src_addr ELSE dst_addr END AS addr,
	         begin_ns + dur_ns AS end_ns
	  FROM data_op_raw WHERE kind IN (1, 17, 4, 20)),
	w AS (SELECT seq, is_delete, LAG(is_delete) OVER win AS prev_delete, LAG(seq) OVER win AS prev_seq
	      FROM items WINDOW win AS (PARTITION BY dev, addr ORDER BY end_ns, is_delete, seq)),
	expected AS (SELECT seq AS delete_seq, prev_seq AS alloc_seq FROM w WHERE is_delete AND prev_delete = 0)
	SELECT (SELECT COUNT(*) FROM expected), (SELECT COUNT(*) FROM delete_pair_raw),
	  (SELECT COUNT(*) FROM (SELECT * FROM expected EXCEPT SELECT delete_seq, alloc_seq FROM delete_pair_raw)),
	  (SELECT COUNT(*) FROM (SELECT delete_seq, alloc_seq FROM delete_pair_raw EXCEPT SELECT * FROM expected))"
}
pairs_ok() {
	local r
	r=$(pairs_check "$1")
	read -r want got missing extra <<<"${r//|/ }"
	[ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$missing" = 0 ] && [ "$extra" = 0 ] ||
		fail "$2: delete_pair_raw is not the rule's pairs (expected, held, missing, extra: $r)"
}
# Every table the expansion writes, row by row.
rows_hash() {
	local t
	for t in run_raw device_raw thread_raw meta data_op_raw kernel_raw target_raw delete_pair_raw; do
		echo "== $t"
		q "$1" "SELECT * FROM $t ORDER BY 1, 2"
	done | md5sum | cut -d' ' -f1
}

# What mapprof 90f4098 (the sorting expansion, a multi-row INSERT) made of these spools.
declare -A want=(
	[inorder]=073ace7314fd27c88bbd2812c7c8647a
	[late]=6656f8bde12d65df1d4a0028a2fb7b66
	[shared]=ee83a8f58235f1badf3cd65109dacca4
)
for mode in inorder late shared; do
	"$PYTHON" gen.py "$mode" "$mode.spool" || fail "cannot generate the $mode spool"
	"$mapprof" recover -o "$mode.db" "$mode.spool" >/dev/null 2>"$mode.err" ||
		{ cat "$mode.err" >&2; fail "recover of the $mode spool failed"; }
	pairs_ok "$mode.db" "the $mode spool"
	assert_eq "$(rows_hash "$mode.db")" "${want[$mode]}" "the rows of the $mode spool's database"
done
# The same ~150,000 records in the order their chunks filled and shuffled
# (the window overflows, its slots are taken again): the same rows.
for mode in big bigshuffled; do
	"$PYTHON" gen.py "$mode" "$mode.spool" || fail "cannot generate the $mode spool"
	"$mapprof" recover -o "$mode.db" "$mode.spool" >/dev/null 2>"$mode.err" ||
		{ cat "$mode.err" >&2; fail "recover of the $mode spool failed"; }
	pairs_ok "$mode.db" "the $mode spool"
done
[ "$(q big.db 'SELECT (SELECT COUNT(*) FROM data_op_raw) + (SELECT COUNT(*) FROM kernel_raw)
                 + (SELECT COUNT(*) FROM target_raw)')" -gt 131072 ] || fail "the big spool is smaller than two windows"
assert_eq "$(rows_hash bigshuffled.db)" "$(rows_hash big.db)" "the rows of the shuffled big spool's database"

# Real recordings: four threads, each its own buffer, many tiny regions.
compile_offload "$MAPPROF_SRC/tests/e2e/threads_regions.c" threads -O1
regions=1500
for chunks in default 2; do
	if [ "$chunks" = default ]; then
		"$mapprof" record -o "rec-$chunks.db" -- ./threads "$regions" >out 2>rec.err ||
			{ cat rec.err >&2; fail "record failed"; }
	else
		MAPPROF_RING_CHUNKS=$chunks "$mapprof" record -o "rec-$chunks.db" -- ./threads "$regions" >out 2>rec.err ||
			{ cat rec.err >&2; fail "record with $chunks ring chunks failed"; }
	fi
	db=rec-$chunks.db
	assert_eq "$(cat out)" "$((4 * regions))" "the program's own count"
	# Each region: alloc and to for a, alloc for b, the kernel, from and
	# the two deletes, the construct (the runtime may skip nothing here).
	assert_eq "$(q "$db" "SELECT (SELECT COUNT(*) FROM kernel_raw), (SELECT COUNT(*) FROM target_raw),
	                             (SELECT COUNT(*) FROM data_op_raw WHERE kind IN (4, 20))")" \
		"$((4 * regions))|$((4 * regions))|$((8 * regions))" "kernels, constructs and deletes ($chunks ring chunks)"
	pairs_ok "$db" "recorded with $chunks ring chunks"
	assert_eq "$(q "$db" "SELECT COUNT(*) FROM stats WHERE name IN ('record_expand_ns', 'record_expand_cpu_ns')
	                      AND value > 0")" 2 "the expansion's times in stats ($chunks ring chunks)"
done
echo ok
