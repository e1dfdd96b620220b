#!/usr/bin/env bash
# terminal_escape.sh - what a database says never drives the terminal, and a
# path in a hint can be pasted into a shell (issue 23, item 10).
#
# A map name or a source path holding ESC ] 0 ; PWNED BEL ESC [ 2 J used to
# retitle and clear the user's terminal when 'report' or 'diff' printed it;
# a spool path holding ';$(...)' ran the command when its 'mapprof recover'
# hint was pasted.  Now every byte printed from data is escaped (C0 and DEL
# as \xNN, C1 and bidi controls as \uNNNN, invalid UTF-8 as \xNN: shown,
# never dropped), and hint paths are quoted for a POSIX shell.
#
# The hostile names are put into a real recording's raw tables with sqlite3
# (the report recomputes names and paths from them).
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v "$PYTHON" >/dev/null || skip "no $PYTHON"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# raw_controls FILE WHAT: fail if FILE holds a byte a terminal obeys: C0
# other than newline and tab, DEL, a C1 control (raw, or as UTF-8), a bidi
# override or isolate, or any byte that is not valid UTF-8.
raw_controls() {
	"$PYTHON" - "$1" "$2" <<'PY' || fail "$2: raw control bytes in the output (see above)"
import re, sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in data if (b < 0x20 and b not in (9, 10)) or b == 0x7f]
try:
    text = data.decode("utf-8")
except UnicodeDecodeError as e:
    print("%s: invalid UTF-8 at %d: %r" % (sys.argv[2], e.start, data[max(0, e.start - 20):e.start + 20]))
    sys.exit(1)
bad += [c for c in text if 0x80 <= ord(c) <= 0x9f or 0x202a <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069]
if bad:
    i = min([data.find(bytes([b])) for b in bad if isinstance(b, int)] + [0])
    print("%s: %d raw control characters, first: %r" % (sys.argv[2], len(bad), bad[0]))
    sys.exit(1)
PY
}

"$mapprof" record -o run.db -- "$sample" >/dev/null 2>rec.err || fail "cannot record: $(cat rec.err)"

# ESC ] 0 : PWNED BEL (retitle), ESC [ 2 J (clear), CSI as a C1 control
# (U+009B), a right-to-left override, DEL.  (';' separates psource's fields.)
evil="char(27) || ']0:PWNED' || char(7) || char(27) || '[2J' || char(155) || char(8238) || char(127)"
cp run.db evil.db
q evil.db "UPDATE source_raw SET psource = replace(psource, 'samples/round_trip.c', 'samples/rt' || $evil || '.c')" >/dev/null
q evil.db "UPDATE source_raw SET map_names = replace(map_names, ';a;', ';a' || replace(replace(replace($evil, char(27), '\\u001b'), char(7), '\\u0007'), char(127), '\\u007f') || ';')" >/dev/null
# The map name must have come through (else this test checks nothing).
q evil.db "SELECT map_names FROM source_raw" | grep -q 'PWNED' || fail "the map name was not changed"

# --- report: the summary and the messages ---------------------------------------
rc=0
"$mapprof" report evil.db >out 2>err || rc=$?
assert_eq "$rc" 0 "report of the crafted database: $(cat err)"
raw_controls out "report's summary"
raw_controls err "report's messages"
# Shown escaped, not dropped.
grep -qF 'rt\x1b]0:PWNED\x07\x1b[2J\u009b\u202e\x7f.c:35' out ||
	fail "report's summary does not show the escaped source path: $(grep -a PWNED out | head -3)"
grep -qF "'a\\x1b]0:PWNED\\x07" out ||
	fail "report's summary does not show the escaped map name: $(grep -a "of 'a" out | head -3)"

# A module path (the program's, moved away: no source lines) with a byte that
# is not UTF-8: shown as \x9b.
cp run.db evil-mod.db
q evil-mod.db "UPDATE module_raw SET path = '/nowhere/rt' || $evil || CAST(X'9b' AS TEXT) WHERE id = 1; UPDATE source_raw SET psource = NULL" >/dev/null
rc=0
"$mapprof" report --no-json --no-html evil-mod.db >out 2>err || rc=$?
assert_eq "$rc" 0 "report of a crafted module path: $(cat err)"
raw_controls out "report's summary naming a crafted module"
raw_controls err "report's messages naming a crafted module"
grep -qF 'rt\x1b]0:PWNED\x07\x1b[2J\u009b\u202e\x7f\x9b+0x' out ||
	fail "report's summary does not show the escaped module path: $(grep -a 'PWNED' out | head -3)"

# Several databases: the merged summary.
cp evil.db evil2.db
rc=0
"$mapprof" report evil.db evil2.db >out 2>err || rc=$?
assert_eq "$rc" 0 "report of two crafted databases: $(cat err)"
raw_controls out "the merged summary"
grep -qF 'PWNED' out || fail "the merged summary names no crafted path: $(head -20 out)"

# --- diff -------------------------------------------------------------------------
rc=0
"$mapprof" diff run.db evil.db >out 2>err || rc=$?
assert_eq "$rc" 0 "diff with the crafted database: $(cat err)"
raw_controls out "diff's comparison"
raw_controls err "diff's messages"
grep -qF 'rt\x1b]0:PWNED' out || fail "diff does not show the escaped path: $(head -30 out)"

# --- messages quoting a path ------------------------------------------------------
bad_path=$dir/$'x\e]0;PWNED\a\e[2J\x9b.db'
rc=0
"$mapprof" report "$bad_path" >out 2>err || rc=$?
assert_eq "$rc" 3 "report of a missing database with controls in its name"
raw_controls err "the error naming the database"
grep -qF 'x\x1b]0;PWNED\x07\x1b[2J\x9b.db' err || fail "the error does not show the escaped path: $(cat err)"

# --- a hint's command, pasted into a shell, runs nothing ---------------------------
# paste CMDLINE: run a command line from a hint in sh, with 'mapprof' a
# function that prints its arguments one a line (to 'args'); the current
# directory is $dir, where '$(touch PWNED)' would leave a file.
paste() {
	rm -f args PWNED
	sh -c "mapprof() { printf '%s\n' \"\$@\" >args; }; $1" || fail "the pasted command failed: $1"
	[ ! -e PWNED ] || fail "pasting the hint ran a command: $1"
}
mkdir -p "a b;\$(touch PWNED)'s"
hostile="$dir/a b;\$(touch PWNED)'s/run \$(touch PWNED);\`touch PWNED\`.db"
# The spool path in an unfinished database's status: read by the program
# 'mapprof record' runs while it records (sqlite3 itself), once record's
# live thread has marked it (as the program starts: a program that reads it
# at once may be first; up to 10 s).
"$mapprof" record -o "$hostile" -- sh -c 'for i in $(seq 200); do
		d=$(sqlite3 "$1" "SELECT status_detail FROM run_raw" 2>/dev/null)
		case $d in *recover*) printf "%s\n" "$d"; exit 0 ;; esac
		sleep 0.05
	done' sh "$hostile" >detail 2>err || fail "record -o HOSTILE: $(cat err)"
grep -q 'recover them with: mapprof recover ' detail || fail "no recover command in the status: $(cat detail)"
paste "$(sed -n 's/.*recover them with: //p' detail)"
assert_eq "$(cat args)" "recover
$hostile-spool" "the arguments of the pasted 'mapprof recover'"
rm -f "$hostile-spool"

# trace: "run 'mapprof report DB' first" on a database with no findings.
cp run.db "$hostile"
rc=0
"$mapprof" trace -o t.json "$hostile" >out 2>err || rc=$?
assert_eq "$rc" 0 "trace of HOSTILE: $(cat err)"
cmd=$(sed -n "s/.*run '\\(mapprof report .*\\)' first.*/\\1/p" err)
[ -n "$cmd" ] || fail "trace gave no 'mapprof report' hint: $(cat err)"
paste "$cmd"
assert_eq "$(cat args)" "report
$hostile" "the arguments of the pasted 'mapprof report'"

# A plain path stays plain; one starting with '-' is not taken for an option.
cp run.db ./-x.db
"$mapprof" trace -o t.json -- -x.db >out 2>err
grep -qF "run 'mapprof report ./-x.db' first" err || fail "the hint for '-x.db': $(cat err)"
exit 0
