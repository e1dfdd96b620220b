#!/usr/bin/env bash
# output_symlink.sh - a default output never follows a symlink (issue 23,
# item 11).  'ln -s ~/.bashrc report.json; mapprof report app.db' used to
# overwrite ~/.bashrc: whoever can write the database's directory chose what
# the report destroyed.  Now a symlink at a default output's path (report.json
# and report.html beside the database, for 'report', 'report DB DB' and 'run';
# trace.json for 'trace'), dangling or not, is replaced by the output itself:
# the link goes, its target is left alone, and a note says so.  A path given
# with --json/--html/-o still writes through a symlink, as documented.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"
mkdir victims

# plant DIR NAME...: in DIR, a symlink NAME -> victims/DIR-NAME, a file
# whose content must survive, for each NAME.
plant() {
	local d=$1 name
	shift
	for name in "$@"; do
		echo "precious $name" >"victims/$d-$name"
		ln -sfn "$dir/victims/$d-$name" "$d/$name"
	done
}

# intact DIR WHAT NAME...: each victim is unchanged and each NAME in DIR is
# now a regular file.
intact() {
	local d=$1 what=$2 name
	shift 2
	for name in "$@"; do
		assert_eq "$(cat "victims/$d-$name")" "precious $name" "$what: the symlink's target $name"
		[ -f "$d/$name" ] && [ ! -L "$d/$name" ] ||
			fail "$what: $d/$name is not a regular file: $(ls -l "$d/$name")"
	done
}

"$mapprof" record -o run.db -- "$sample" >/dev/null 2>err || fail "cannot record: $(cat err)"

# --- report DB ------------------------------------------------------------------------
mkdir one && cp run.db one/run.db
plant one report.json report.html
rc=0
"$mapprof" report one/run.db >out 2>err || rc=$?
assert_eq "$rc" 0 "report with symlinks at the default outputs: $(cat err)"
intact one "report" report.json report.html
jq -e '.format == "mapprof-report"' one/report.json >/dev/null || fail "report: one/report.json is no report"
grep -q '</html>' one/report.html || fail "report: one/report.html is no page"
grep -q "note: 'one/report.json' is a symbolic link" err || fail "report: no note about the link: $(cat err)"

# A dangling symlink: its target is not created.
mkdir dangling && cp run.db dangling/run.db
ln -s "$dir/victims/created-by-mapprof" dangling/report.json
"$mapprof" report -q --no-html dangling/run.db >out 2>err || fail "report with a dangling symlink: $(cat err)"
[ ! -e victims/created-by-mapprof ] || fail "report created the target of a dangling symlink"
[ -f dangling/report.json ] && [ ! -L dangling/report.json ] || fail "dangling/report.json is not a file"

# --- report DB DB (the merged outputs beside the first) ------------------------------
mkdir many && cp run.db many/a.db && cp run.db many/b.db
plant many report.json report.html
"$mapprof" report -q many/a.db many/b.db >out 2>err || fail "report DB DB: $(cat err)"
intact many "report DB DB" report.json report.html

# --- trace -----------------------------------------------------------------------------
plant one trace.json
"$mapprof" trace one/run.db >out 2>err || fail "trace: $(cat err)"
intact one "trace" trace.json
jq -e '.traceEvents | length > 0' one/trace.json >/dev/null || fail "trace: one/trace.json is no trace"

# --- run ---------------------------------------------------------------------------------
mkdir ran
plant ran report.json report.html
"$mapprof" run -q -o ran/x -- "$sample" >out 2>err || fail "run: $(cat err)"
intact ran "run" report.json report.html

# --- an explicit path still writes through a symlink ------------------------------------
echo old >victims/explicit
ln -s "$dir/victims/explicit" explicit.json
"$mapprof" report -q --no-html --json explicit.json run.db >out 2>err || fail "report --json LINK: $(cat err)"
[ -L explicit.json ] || fail "report --json LINK replaced the symlink"
jq -e '.format == "mapprof-report"' victims/explicit >/dev/null || fail "report --json LINK: the target has no report"
exit 0
