#!/usr/bin/env bash
# report_outputs.sh - where 'mapprof report', 'record' and 'run' write, and
# what they refuse to destroy (issue 13, "Nothing destroyed"):
#
# - an output that is not a regular file (a character device, a FIFO, a
#   symlink to standard output) is written in place, never unlinked or
#   renamed over; a symlink to a regular file stays a symlink and its
#   target gets the report; '-' is standard output, and the summary then
#   goes to stderr;
# - an output that is the input database (by device and inode: a hard link,
#   a symlink, another spelling), or two outputs that are the same file,
#   are refused with exit 2 before anything is written;
# - 'record -f -o' and 'run -f -o' refuse a path that is not a regular file;
# - no temporary file is left behind, after a success or a failure.
#
# The device is a private node with /dev/null's numbers made with mknod
# (as root), never /dev/null itself: a regression must not replace the
# machine's /dev/null.  Without root (or mknod) the device cases use a FIFO.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# run_rc CMD...: run CMD with stdout in $dir/out and stderr in $dir/err
# (at most 60 s); print its exit status.
run_rc() {
	local rc=0
	timeout 60 "$@" >"$dir/out" 2>"$dir/err" || rc=$?
	echo "$rc"
}

# no_temp DIR WHAT: fail if DIR holds a temporary file of an output.
no_temp() {
	local left
	left=$(find "$1" -name '*.tmp*' 2>/dev/null)
	[ -z "$left" ] || fail "$2: temporary files left behind: $left"
}

# valid_json FILE WHAT: fail unless FILE holds one report.json document.
valid_json() {
	[ "$(jq -r .format "$1" 2>/dev/null)" == mapprof-report ] ||
		fail "$2: '$1' is not a report.json: $(head -c 300 "$1")"
}

rc=$(run_rc "$mapprof" record -o run.db -- "$sample")
assert_eq "$rc" 0 "recording $sample"
[ -f run.db ] || fail "record wrote no run.db"

# A device node of our own: /dev/null's numbers in this directory.
device=
if [ "$(id -u)" -eq 0 ] && mknod "$dir/null" c 1 3 2>/dev/null && [ -c "$dir/null" ]; then
	device=$dir/null
fi

# --- '-' is standard output; the summary moves to stderr ---------------------
mkdir dash && cp run.db dash/run.db
rc=$(run_rc "$mapprof" report --no-html --json - dash/run.db)
assert_eq "$rc" 0 "report --json -"
valid_json "$dir/out" "report --json - (the summary must not be mixed into stdout)"
grep -q 'top findings\|pattern' "$dir/err" || fail "report --json -: no summary on stderr: $(cat "$dir/err")"
[ ! -e dash/report.json ] && [ ! -e ./- ] && [ ! -e dash/- ] || fail "report --json - wrote a file"
rc=$(run_rc "$mapprof" report -q --no-json --html - dash/run.db)
assert_eq "$rc" 0 "report --html -"
grep -q '</html>' "$dir/out" || fail "report --html -: no page on stdout"

# --- a device is written in place ---------------------------------------------
if [ -n "$device" ]; then
	rc=$(run_rc "$mapprof" report -q --no-html --json "$device" run.db)
	assert_eq "$rc" 0 "report --json DEVICE: $(cat "$dir/err")"
	[ -c "$device" ] || fail "report --json DEVICE replaced the character device: $(ls -l "$device")"
	rc=$(run_rc "$mapprof" report -q --no-json --html "$device" run.db)
	assert_eq "$rc" 0 "report --html DEVICE: $(cat "$dir/err")"
	[ -c "$device" ] || fail "report --html DEVICE replaced the character device: $(ls -l "$device")"
	# A device that cannot take the report: an error, and the device stays.
	if [ -c /dev/full ]; then
		mknod "$dir/full" c 1 7 || fail "cannot make a copy of /dev/full"
		rc=$(run_rc "$mapprof" report -q --no-html --json "$dir/full" run.db)
		assert_eq "$rc" 3 "report --json FULL-DEVICE"
		grep -q "error: cannot write '$dir/full'" "$dir/err" || fail "report --json FULL-DEVICE said: $(cat "$dir/err")"
		[ -c "$dir/full" ] || fail "report --json FULL-DEVICE replaced the device"
	fi
else
	echo "note: not root (or no mknod): the device cases use FIFOs only"
fi
[ -c /dev/null ] || fail "/dev/null is no longer a character device"

# --- a FIFO is written in place ----------------------------------------------
mkfifo fifo || fail "cannot make a FIFO"
timeout 30 cat fifo >fifo.out &
reader=$!
rc=$(run_rc "$mapprof" report -q --no-html --json fifo run.db)
wait "$reader"
assert_eq "$rc" 0 "report --json FIFO: $(cat "$dir/err")"
[ -p fifo ] || fail "report --json FIFO replaced the FIFO: $(ls -l fifo)"
valid_json fifo.out "the JSON read from the FIFO"

# --- a symlink to standard output ---------------------------------------------
ln -s /proc/self/fd/1 stdout-link
# Standard output a pipe; no -q: the summary must not be mixed with the JSON.
"$mapprof" report --no-html --json stdout-link run.db 2>"$dir/err" | cat >piped.json
[ -L stdout-link ] || fail "report --json LINK-TO-STDOUT (a pipe) replaced the symlink"
valid_json piped.json "JSON through a symlink to /proc/self/fd/1 (stdout a pipe)"
# Standard output a regular file.
rc=0
"$mapprof" report -q --no-html --json stdout-link run.db >redirected.json 2>"$dir/err" || rc=$?
assert_eq "$rc" 0 "report --json LINK-TO-STDOUT (a file): $(cat "$dir/err")"
[ -L stdout-link ] || fail "report --json LINK-TO-STDOUT (a file) replaced the symlink"
valid_json redirected.json "JSON through a symlink to /proc/self/fd/1 (stdout a file)"

# An open descriptor (/dev/fd/N, /dev/stderr) is written where it is: after
# what a shell's '>>' kept, never over it.
echo before >fd3.json
rc=0
"$mapprof" report -q --no-html --json /dev/fd/3 run.db 3>>fd3.json 2>"$dir/err" || rc=$?
assert_eq "$rc" 0 "report --json /dev/fd/3: $(cat "$dir/err")"
assert_eq "$(head -n 1 fd3.json)" before "the first line of a file opened with '>>'"
tail -n +2 fd3.json >fd3-tail.json
valid_json fd3-tail.json "the JSON after 'before'"
echo before >stderr.log
ln -s /dev/stderr stderr-link
rc=0
"$mapprof" report -q --no-html --json stderr-link run.db 2>>stderr.log || rc=$?
assert_eq "$rc" 0 "report --json LINK-TO-STDERR"
[ -L stderr-link ] || fail "report --json LINK-TO-STDERR replaced the symlink"
assert_eq "$(head -n 1 stderr.log)" before "the first line of stderr opened with '>>'"
grep -q '"format": "mapprof-report"' stderr.log || fail "no JSON on stderr: $(head -c 300 stderr.log)"

# --- a symlink to a regular file: the target gets the report --------------------
mkdir target
echo old >target/report.json
ln -s target/report.json link.json
rc=$(run_rc "$mapprof" report -q --no-html --json link.json run.db)
assert_eq "$rc" 0 "report --json SYMLINK: $(cat "$dir/err")"
[ -L link.json ] || fail "report --json SYMLINK replaced the symlink: $(ls -l link.json)"
valid_json target/report.json "the symlink's target"
no_temp target "report --json SYMLINK"

# --- a regular file: replaced, its permissions kept; a new one gets the umask's -
rm -f new.json && echo old >kept.json && chmod 600 kept.json
rc=$( umask 027 && run_rc "$mapprof" report -q --json new.json --html kept.json run.db)
assert_eq "$rc" 0 "report --json NEW --html EXISTING: $(cat "$dir/err")"
valid_json new.json "a new output"
assert_eq "$(stat -c %a new.json)" 640 "mode of a new output under umask 027"
assert_eq "$(stat -c %a kept.json)" 600 "mode of a replaced output"
grep -q '</html>' kept.json || fail "kept.json was not replaced by the page"

# --- a write that fails leaves the old file whole and no temporary file ----------
mkdir small
echo old >small/report.json
rc=$( trap '' XFSZ && ulimit -f 1 && run_rc "$mapprof" report -q --no-html --json small/report.json run.db)
[ "$rc" -ne 0 ] || fail "report --json under a 1 KiB file size limit succeeded"
grep -q "error: cannot write 'small/report.json'" "$dir/err" ||
	fail "report --json under a 1 KiB file size limit said: $(cat "$dir/err")"
assert_eq "$(cat small/report.json)" old "the old report after a failed write"
no_temp small "a failed write"

# --- an output that is the database: refused, nothing written -----------------
mkdir same && cp run.db same/run.db && ln same/run.db same/hard.db && ln -s run.db same/sym.db
cp same/run.db before.db
for args in "--json same/run.db" "--html same/run.db" "--json ./same/../same/run.db" \
	"--json same/hard.db" "--html same/sym.db" "--json same/run.db-journal" \
	"--json same/run.db --no-html"; do
	# shellcheck disable=SC2086
	rc=$(run_rc "$mapprof" report $args same/run.db)
	assert_eq "$rc" 2 "report $args same/run.db"
	grep -q '^mapprof: error: .*database' "$dir/err" || fail "report $args: said $(cat "$dir/err")"
	cmp -s before.db same/run.db || fail "report $args same/run.db changed the database"
	[ ! -s "$dir/out" ] || fail "report $args same/run.db printed: $(head -c 300 "$dir/out")"
	[ -L same/sym.db ] || fail "report $args same/run.db replaced the symlink"
	assert_eq "$(cd same && ls | tr '\n' ' ')" "hard.db run.db sym.db " "files after report $args"
done
# The database through a symlink, the output the file itself.
rc=$(run_rc "$mapprof" report --json same/run.db same/sym.db)
assert_eq "$rc" 2 "report --json same/run.db same/sym.db"
cmp -s before.db same/run.db || fail "report --json DB via a symlink changed the database"

# --- two outputs that are the same file: refused --------------------------------
mkdir two && cp run.db two/run.db && touch two/x && ln -s x two/x-link
for args in "--json two/x --html two/x" "--json two/new --html ./two/new" \
	"--json two/x --html two/x-link" "--json - --html -" "--json fifo --html fifo"; do
	# shellcheck disable=SC2086
	rc=$(run_rc "$mapprof" report $args two/run.db)
	assert_eq "$rc" 2 "report $args"
	grep -q '^mapprof: error: .*same file' "$dir/err" || fail "report $args: said $(cat "$dir/err")"
	[ ! -s "$dir/out" ] || fail "report $args printed: $(head -c 300 "$dir/out")"
	[ ! -s two/x ] && [ ! -e two/new ] || fail "report $args wrote an output"
done
[ -p fifo ] || fail "the FIFO is gone"

# --- record and run refuse a database path that is not a regular file ----------
for target in fifo ${device:+"$device"}; do
	for force in "" -f; do
		kind=$(stat -c %F "$target")
		# shellcheck disable=SC2086
		rc=$(run_rc "$mapprof" record $force -o "$target" -- "$sample")
		assert_eq "$rc" 3 "record $force -o $kind"
		grep -q "error: .*not a regular file" "$dir/err" || fail "record $force -o $kind said: $(cat "$dir/err")"
		assert_eq "$(stat -c %F "$target")" "$kind" "$target after record $force -o"
	done
done
mkfifo run-fifo.db
rc=$(run_rc "$mapprof" run -f -o run-fifo.db -- "$sample")
assert_eq "$rc" 3 "run -f -o FIFO"
[ -p run-fifo.db ] || fail "run -f -o FIFO replaced the FIFO"
# run: a report that would overwrite the database it records is refused
# before the program runs.
mkdir runs
rc=$(run_rc "$mapprof" run -o runs/x --json runs/x.mapprof.db -- "$sample")
assert_eq "$rc" 2 "run -o runs/x --json runs/x.mapprof.db"
[ ! -e runs/x.mapprof.db ] || fail "run recorded although its report would overwrite the database"
rc=$(run_rc "$mapprof" run -q -o runs/y -- "$sample")
assert_eq "$rc" 0 "run -o runs/y: $(cat "$dir/err")"
valid_json runs/report.json "run's report.json"

no_temp "$dir" "after all cases"
exit 0
