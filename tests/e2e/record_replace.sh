#!/usr/bin/env bash
# record_replace.sh - 'mapprof record -f' replaces a database only once the
# new one is whole, and never writes over the program, a file its arguments
# name, or an executable (issue 23, item 4):
#   - a program that cannot start leaves the old database as it was;
#   - -o naming the program, another executable or an argument is refused
#     (exit 3), the file untouched, with or without -f;
#   - a finished recording replaces the old database, leaving nothing beside;
#   - record killed mid-run leaves the old database as it was, and 'mapprof
#     recover' of the spool it names finishes the replacement;
#   - a database is replaced whatever its mode (0777 on vfat, drvfs, CIFS),
#     also when the program's arguments name it; -f -o LINK (record and
#     recover) replaces the symlink's target beside it and keeps the link
#     (review of issue 23, item 9).
. "$(dirname "$0")/lib.sh"
mapprof=$MAPPROF_BUILD/mapprof
d=$(tmpdir)
cd "$d" || fail "cannot enter $d"

# loop SECONDS: tiny target regions for SECONDS (N regions: prints N), then exit 0.
compile_offload "$MAPPROF_SRC/tests/e2e/timed_loop.c" loop -O1 -DPAUSE_US=200
targets() { q "$1" "SELECT COUNT(*) FROM target_raw"; }
# leftovers: the files record may leave beside good.db (none once it ended).
leftovers() { ls -d good.db?* 2>/dev/null; }

"$mapprof" record -o good.db -- ./loop 0 >/dev/null 2>rec.err || { cat rec.err >&2; fail "cannot record"; }
assert_eq "$(targets good.db)" 1 "target constructs of the first recording"
sum=$(md5sum <good.db)

# --- a program that cannot start -----------------------------------------
rc=0
"$mapprof" record -f -o good.db -- ./typo 2>typo.err || rc=$?
assert_eq "$rc" 127 "exit status of record -f with a program that does not exist"
[ -f good.db ] || fail "record -f deleted good.db before finding the program cannot start"
assert_eq "$(md5sum <good.db)" "$sum" "good.db after record -f of a missing program"
assert_eq "$(leftovers)" "" "files left beside good.db"
grep -qF "'good.db' is left as it was" typo.err || { cat typo.err >&2; fail "record does not say good.db is kept"; }

# --- never the program, its files or an executable -------------------------
cp loop app
asum=$(md5sum <app)
for force in -f ""; do
	rc=0
	"$mapprof" record $force -o app -- ./app 0 >/dev/null 2>app.err || rc=$?
	assert_eq "$rc" 3 "exit status of record $force -o app -- ./app"
	assert_eq "$(md5sum <app)" "$asum" "the program after record $force -o app -- ./app"
	grep -qF "refusing to write the database to 'app': it is the program to record" app.err ||
		{ cat app.err >&2; fail "record $force -o app does not say why it refuses"; }
done
# The program found in PATH, as the shell would run it.
rc=0
PATH=$d:$PATH "$mapprof" record -f -o app -- app 0 >/dev/null 2>app.err || rc=$?
assert_eq "$rc" 3 "exit status of record -f -o app -- app (found in PATH)"
assert_eq "$(md5sum <app)" "$asum" "the program after record -f -o app -- app"
# Another executable.
cp loop other
rc=0
"$mapprof" record -f -o other -- ./loop 0 >/dev/null 2>other.err || rc=$?
assert_eq "$rc" 3 "exit status of record -f -o other (an executable)"
cmp -s loop other || fail "record -f wrote over another executable"
grep -qF "it is an executable file" other.err || { cat other.err >&2; fail "no reason for refusing 'other'"; }
# A file an argument names.
echo "the program's data" >data.txt
rc=0
"$mapprof" record -f -o data.txt -- ./loop 0 data.txt >/dev/null 2>data.err || rc=$?
assert_eq "$rc" 3 "exit status of record -f -o data.txt -- ./loop 0 data.txt"
assert_eq "$(cat data.txt)" "the program's data" "the program's argument file"
grep -qF "the program's argument names it" data.err || { cat data.err >&2; fail "no reason for refusing data.txt"; }

# --- a finished recording replaces it ----------------------------------------
"$mapprof" record -f -o good.db -- ./loop 0.05 >loop.out 2>rec.err || { cat rec.err >&2; fail "record -f failed"; }
n=$(sed -n 's/^done //p' loop.out)
assert_eq "$(targets good.db)" "$n" "target constructs after record -f"
assert_eq "$(leftovers)" "" "files left beside good.db after record -f"
sum=$(md5sum <good.db)

# --- a database is no program (issue 23 review, item 9) -------------------
# Every file 0777 (vfat, drvfs, CIFS): a database is still replaced.
chmod 0777 good.db
"$mapprof" record -f -o good.db -- ./loop 0 >/dev/null 2>rec.err ||
	{ cat rec.err >&2; fail "record -f over a database of mode 0777"; }
assert_eq "$(targets good.db)" 1 "target constructs after record -f over a 0777 database"
# An earlier recording that the program's arguments name (it reads it).
"$mapprof" record -f -o good.db -- ./loop 0 good.db >/dev/null 2>rec.err ||
	{ cat rec.err >&2; fail "record -f over a database the program's arguments name"; }
assert_eq "$(leftovers)" "" "files left beside good.db after record -f over an argument"
# A symlink: its target is replaced, beside it, and the link stays.
mkdir real
"$mapprof" record -o real/r.db -- ./loop 0 >/dev/null 2>rec.err || { cat rec.err >&2; fail "cannot record real/r.db"; }
ln -s real/r.db link.db
"$mapprof" record -f -o link.db -- ./loop 0.05 >loop.out 2>rec.err || { cat rec.err >&2; fail "record -f -o link.db"; }
[ -L link.db ] || fail "record -f -o link.db replaced the symlink, not its target"
assert_eq "$(targets real/r.db)" "$(sed -n 's/^done //p' loop.out)" "target constructs in the link's target after record -f"
assert_eq "$(ls real)" r.db "files beside the link's target after record -f"
assert_eq "$(ls -d link.db?* 2>/dev/null)" "" "files beside the link after record -f"
sum=$(md5sum <good.db)

# --- record killed: the old database stays until recover ---------------------
"$mapprof" record -f -o good.db -- ./loop 1.5 >/dev/null 2>k.err &
rec=$!
for _ in $(seq 100); do ls good.db.new-*-spool >/dev/null 2>&1 && break; sleep 0.05; done
sleep 0.5
kill -9 "$rec"
wait "$rec" 2>/dev/null
assert_eq "$(md5sum <good.db)" "$sum" "good.db while the killed record -f's program runs"
spool=$(ls good.db.new-"$rec"-spool 2>/dev/null) || fail "no spool good.db.new-$rec-spool: $(ls)"
sleep 1.5
assert_eq "$(md5sum <good.db)" "$sum" "good.db after record -f was killed"
"$mapprof" recover "$spool" 2>r.err || { cat r.err >&2; fail "recover of the killed record -f's spool failed"; }
[ "$(targets good.db)" -gt 0 ] || fail "the recovered good.db holds no event"
assert_eq "$(q good.db "SELECT status FROM run")" incomplete "the recovered run's status"
assert_eq "$(q good.db "SELECT COUNT(*) FROM meta WHERE key = 'replaces'")" 0 "the recovered database's meta 'replaces'"
assert_eq "$(leftovers)" "" "files left beside good.db after recover"

# recover -f, through a symlink, over a database of mode 0777.
# (killed once the spool holds the run's first frames, past its header)
"$mapprof" record -o k.db -- ./loop 0.6 >/dev/null 2>k.err &
rec=$!
for _ in $(seq 200); do [ "$(stat -c %s k.db-spool 2>/dev/null || echo 0)" -gt 1024 ] && break; sleep 0.05; done
kill -9 "$rec"
wait "$rec" 2>/dev/null
sleep 0.8
chmod 0777 real/r.db
"$mapprof" recover -f -o link.db k.db-spool 2>r.err || { cat r.err >&2; fail "recover -f -o link.db over a 0777 database"; }
[ -L link.db ] || fail "recover -f -o link.db replaced the symlink, not its target"
assert_eq "$(q real/r.db "SELECT command IS NOT NULL FROM run")" 1 "the run recovered through link.db has a command"
assert_eq "$(q real/r.db "SELECT status FROM run")" incomplete "the run recovered through link.db"
assert_eq "$(ls real)" r.db "files beside the link's target after recover -f"
echo "ok"
