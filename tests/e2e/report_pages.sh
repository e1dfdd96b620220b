#!/usr/bin/env bash
# report_pages.sh - the report reads data_op_raw, kernel_raw, target_raw and
# delete_pair_raw from the file's pages (db/pages/pageread.c, db/pages/rowsrc.c) where it
# can, and gives exactly what SQLite gives: the
# same report.json, page and stored findings as MAPPROF_PAGEREAD=0 (SQLite
# reads every row), byte for byte, on
#   - a synthetic run and a recorded sample (read from their pages: with
#     MAPPROF_PAGEREAD=tell nothing is said);
#   - the run edited: reals, text and NULLs in its rows, rows deleted,
#     values at the limits (the rows the pages cannot give are read by
#     SQLite, one by one);
#   - the run rebuilt by VACUUM at page sizes 512 and 65536 (deeper and
#     shallower trees);
#   - files the pages must not be read from (WAL mode, a column added): the
#     report says why under MAPPROF_PAGEREAD=tell, and reads by SQLite;
#   - an older recording whose deletes the report pairs in its own
#     transaction;
#   - a damaged leaf: both ways end alike.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
dir=$(tmpdir)
cd "$dir"

stored() {
	sqlite3 "$1" "SELECT COUNT(*), SUM(finding * 7 + occurrence * 3 + seq) FROM finding_event_raw;
		      SELECT group_concat(fingerprint || ':' || occurrences || ':' || savings_ns, ' ')
		      FROM (SELECT * FROM finding_raw ORDER BY id)"
}

# both NAME DB EXPECT: report DB from its pages and by SQLite alone; the
# outputs must match.  EXPECT: 'pages' (nothing said under tell) or the
# words tell must say.
both() {
	local name=$1 db=$2 expect=$3
	cp "$db" "$name.p.db"
	cp "$db" "$name.s.db"
	MAPPROF_PAGEREAD=tell "$mapprof" report -q --json "$name.p.json" --html "$name.p.html" "$name.p.db" \
		2>"$name.p.err" || fail "report of $name: $(cat "$name.p.err")"
	MAPPROF_PAGEREAD=0 "$mapprof" report -q --json "$name.s.json" --html "$name.s.html" "$name.s.db" \
		2>"$name.s.err" || fail "report of $name by SQLite: $(cat "$name.s.err")"
	cmp -s "$name.p.json" "$name.s.json" || fail "$name: report.json differs from SQLite's reading"
	cmp -s "$name.p.html" "$name.s.html" || fail "$name: the page differs from SQLite's reading"
	assert_eq "$(stored "$name.p.db")" "$(stored "$name.s.db")" "$name: the stored findings"
	if [ "$expect" = pages ]; then
		! grep -qE 'not read from its pages|read by SQLite' "$name.p.err" ||
			fail "$name: not read from its pages: $(cat "$name.p.err")"
	else
		grep -q "$expect" "$name.p.err" || fail "$name: expected '$expect', got: $(cat "$name.p.err")"
	fi
	echo "ok: $name"
}

bash "$MAPPROF_SRC/bench/gen_events.sh" gen.db 5000
both gen gen.db pages

"$mapprof" record -o rec.db -- "$MAPPROF_BUILD/samples/jacobi_like" >/dev/null 2>rec.err ||
	fail "record jacobi_like: $(cat rec.err)"
both rec rec.db pages

cp gen.db edited.db
sqlite3 edited.db "
	UPDATE data_op_raw SET thread = 2.5 WHERE seq % 11 = 3;
	UPDATE data_op_raw SET begin_ns = begin_ns + 0.5, dur_ns = 2.5 WHERE seq % 13 = 4;
	UPDATE data_op_raw SET bytes = '4096' WHERE seq % 17 = 5;
	UPDATE data_op_raw SET hash = x'00ff' WHERE seq % 19 = 6;
	UPDATE data_op_raw SET codeptr = NULL, target_id = NULL WHERE seq % 23 = 7;
	UPDATE data_op_raw SET src_addr = -9223372036854775808, dst_addr = 9223372036854775807 WHERE seq % 29 = 8;
	UPDATE data_op_raw SET map_index = zeroblob(20000) WHERE seq = 1000;
	DELETE FROM data_op_raw WHERE seq % 31 = 9;
	UPDATE delete_pair_raw SET alloc_seq = alloc_seq + 0.0 WHERE delete_seq % 7 = 1;
	UPDATE delete_pair_raw SET alloc_seq = 'x' WHERE delete_seq % 11 = 2;
	UPDATE delete_pair_raw SET alloc_seq = NULL WHERE delete_seq % 13 = 3;
	DELETE FROM delete_pair_raw WHERE delete_seq % 17 = 4;
	UPDATE kernel_raw SET target_id = (SELECT MAX(id) FROM target_raw) - target_id WHERE seq % 5 = 0;
	UPDATE kernel_raw SET target_id = 'x' WHERE seq % 7 = 1;
	UPDATE kernel_raw SET target_id = target_id + 0.5 WHERE seq % 11 = 2;
	UPDATE kernel_raw SET target_id = NULL WHERE seq % 13 = 3;
	UPDATE kernel_raw SET thread = 1.5, begin_ns = begin_ns + 0.5 WHERE seq % 19 = 4;
	DELETE FROM kernel_raw WHERE seq % 23 = 5;
	DELETE FROM target_raw WHERE id % 17 = 4;
	UPDATE target_raw SET codeptr = NULL WHERE id % 19 = 5;
	UPDATE target_raw SET codeptr = 'text' WHERE id % 23 = 6;
	UPDATE target_raw SET codeptr = 4198400.5 WHERE id % 29 = 7;"
both edited edited.db pages

for ps in 512 65536; do
	cp gen.db "vac$ps.db"
	sqlite3 "vac$ps.db" "PRAGMA page_size = $ps; VACUUM;"
	[ "$(sqlite3 "vac$ps.db" 'PRAGMA page_size')" = "$ps" ] || fail "VACUUM did not change the page size"
	both "vac$ps" "vac$ps.db" pages
done

cp gen.db wal.db
sqlite3 wal.db "PRAGMA journal_mode = WAL" >/dev/null
both wal wal.db "not read from its pages: in WAL mode"

# Deletes not yet paired (an older recording): the report pairs them in its
# own transaction (they are not in the file yet when it reads them, and
# SQLite reads them; the other tables still from their pages).
cp gen.db unpaired.db
sqlite3 unpaired.db "DELETE FROM delete_pair_raw; DELETE FROM meta WHERE key = 'deletes_paired'"
both unpaired unpaired.db "delete_pair_raw of .* not read from its pages: changed through this connection"
! grep -v '^mapprof: delete_pair_raw of' unpaired.p.err | grep -q 'not read from its pages' ||
	fail "unpaired: other tables not read from their pages: $(cat unpaired.p.err)"
[ "$(sqlite3 unpaired.p.db 'SELECT COUNT(*) FROM delete_pair_raw')" -gt 0 ] || fail "unpaired: no pairs made"

# Deletes paired again into nothing (their allocations' addresses moved):
# the report's DELETE empties the table without the update hook knowing
# (SQLite truncates it), and the file's pages still hold the old pairs:
# they must not be read.
cp gen.db unpairable.db
sqlite3 unpairable.db "DELETE FROM meta WHERE key = 'deletes_paired';
	UPDATE data_op_raw SET src_addr = src_addr + 1 WHERE kind IN (4, 20)"
both unpairable unpairable.db "delete_pair_raw of .* not read from its pages: changed through this connection"
assert_eq "$(sqlite3 unpairable.p.db 'SELECT COUNT(*) FROM delete_pair_raw')" 0 "unpairable: pairs left"

cp gen.db added.db
sqlite3 added.db "ALTER TABLE data_op_raw ADD COLUMN note TEXT"
both added added.db "not read from its pages: the table's columns"

# The pages given up part way (as on a page the reader does not accept):
# SQLite's scan goes on after the rows given, in the same order.
for n in 1 777 20000; do
	cp edited.db "stop$n.db"
	MAPPROF_PAGEREAD=stop:$n MAPPROF_REPORT_SERIAL=1 "$mapprof" report -q --json "stop$n.json" \
		--html "stop$n.html" "stop$n.db" 2>"stop$n.err" || fail "report stopping at $n: $(cat "stop$n.err")"
	MAPPROF_PAGEREAD=0 MAPPROF_REPORT_SERIAL=1 "$mapprof" report -q --json "stop$n.s.json" \
		--html "stop$n.s.html" "edited.s.db" 2>"stop$n.s.err" || fail "report by SQLite: $(cat "stop$n.s.err")"
	cmp -s "stop$n.json" "stop$n.s.json" || fail "pages given up after $n rows: report.json differs"
	cmp -s "stop$n.html" "stop$n.s.html" || fail "pages given up after $n rows: the page differs"
	echo "ok: pages given up after $n rows"
done

# A leaf of data_op_raw damaged: its cell pointers overwritten.  Whatever
# SQLite makes of the file, the pages way ends as SQLite's does.
cp gen.db damaged.db
page=$(sqlite3 damaged.db "PRAGMA page_size")
leaf=$(sqlite3 damaged.db "SELECT pageno FROM dbstat WHERE name = 'data_op_raw' AND pagetype = 'leaf'
	 LIMIT 1 OFFSET 100" 2>/dev/null || true)
if [ -n "$leaf" ]; then
	printf '\xff\xf0\xff\xf0\xff\xf0' | dd of=damaged.db bs=1 seek=$(((leaf - 1) * page + 8)) conv=notrunc 2>/dev/null
	rc_p=0 rc_s=0
	cp damaged.db damaged.p.db
	cp damaged.db damaged.s.db
	"$mapprof" report -q --json damaged.p.json --no-html damaged.p.db 2>damaged.p.err || rc_p=$?
	MAPPROF_PAGEREAD=0 "$mapprof" report -q --json damaged.s.json --no-html damaged.s.db 2>damaged.s.err || rc_s=$?
	assert_eq "$rc_p" "$rc_s" "a damaged leaf: the exit status"
	if [ "$rc_p" = 0 ]; then
		cmp -s damaged.p.json damaged.s.json || fail "a damaged leaf: report.json differs"
	else
		assert_eq "$(sed "s/damaged\.[ps]\./X./g" damaged.p.err)" "$(sed "s/damaged\.[ps]\./X./g" damaged.s.err)" \
			"a damaged leaf: what the report says"
	fi
	echo "ok: damaged (exit $rc_p)"
else
	echo "SKIP: damaged leaf (this sqlite3 has no dbstat table)"
fi
echo "ok: the report reads the event tables' pages as SQLite reads them"
