#!/usr/bin/env bash
# 'mapprof report' checks a database (its schema, that it is mapprof's,
# finished, unaltered: db/open.c) in ~100 statements.  Each alone took and
# dropped the file's lock and looked for a journal: ~400 fcntl() locks and
# ~500 stat() calls a database, most of a tiny rank database's report
# (mapprof-mpi over thousands of them: issue 27).  They run in one read
# transaction now: a database is locked a handful of times, whatever the
# number of checks.  Counted by strace on three copies of one recording,
# reported fresh (findings stored) and again (findings read back); the
# reports of a copy and of the original stay the same.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null 2>&1 || skip "no strace (apt-get install strace; make test-deps installs it)"
t=$(tmpdir)
m=$MAPPROF_BUILD/mapprof

"$m" record -f -o "$t/a.db" -- "$MAPPROF_BUILD/samples/round_trip" >/dev/null 2>"$t/err" ||
	fail "record: $(cat "$t/err")"
cp "$t/a.db" "$t/b.db" && cp "$t/a.db" "$t/c.db" && cp "$t/a.db" "$t/orig.db"
"$m" report -q --json "$t/orig.json" "$t/orig.db" >/dev/null 2>"$t/err" || fail "report: $(cat "$t/err")"
for pass in fresh again; do
	strace -f -qq -e trace=fcntl -o "$t/st.$pass" "$m" report -q --json "$t/r.json" --html "$t/r.html" \
		"$t/a.db" "$t/b.db" "$t/c.db" >/dev/null 2>"$t/err" || fail "report ($pass): $(cat "$t/err")"
	locks=$(grep -c 'F_SETLK' "$t/st.$pass" || true)
	# 17 a database here; 706ec87..34db1d3 took ~400.
	[ "$locks" -le 120 ] || fail "report of 3 databases ($pass) took and dropped locks $locks times (at most 120)"
	[ "$locks" -ge 3 ] || fail "report of 3 databases ($pass): $locks fcntl locks: not counted (strace?)"
done
for x in a b c; do
	"$m" report -q --json "$t/$x.json" "$t/$x.db" >/dev/null 2>"$t/err" || fail "report $x: $(cat "$t/err")"
	assert_eq "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["findings"], sort_keys=True))' "$t/$x.json" | md5sum)" \
		"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["findings"], sort_keys=True))' "$t/orig.json" | md5sum)" \
		"findings of copy $x and of the original"
done
echo "ok: 3 databases reported with $locks lock calls"
