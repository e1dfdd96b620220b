#!/usr/bin/env bash
# layers.sh - the includes point one way (README.md, "Architecture"):
#
#     collector/ -> db/ formats (db/spool/)         lib/ <- every stage
#     cli/ -> report/ -> db/ storage -> db/ formats
#
# inside db/, between its rooms (docs/architecture.md):
#
#     ingest/, read/ (side by side) -> store/ -> pages/ -> db/'s top (db.h,
#     db_internal.h, db.c, open.c), and ingest/ -> spool/ (the formats)
#
# where pages/ and db_internal.h are db/'s own: no file outside db/
# includes them (SQLite's handle and its file format stay in db/);
# and inside report/, between its rooms:
#
#     report.c (the entry point) -> output/, compare/ -> plan/ -> findings/ -> detect/
#                                   trace/ (beside them)   (and attribute/, beside detect/)
#
# Each '#include "..."' of every .c and .h under collector/, db/, report/,
# cli/ and lib/ is checked against what its folder may include; a wrong one
# fails the test, naming the file, the line and the include.  So is an
# include that names no folder ("x.h": write it from the root, as the rules
# read it), a folder of db/ or report/ that is no room here, and a third
# loose .c at db/'s or report/'s top.  Then the checker is run on copies of
# the tree with one wrong include put in, and must fail there: a checker
# that cannot fail proves nothing.
#
# 'make layers' runs this script alone.
. "$(dirname "$0")/lib.sh"

# The part of the house a path belongs to, into $part: formats, storage,
# collector, analysis, cli, lib, or none (tests, bench, samples: not checked).
# (Functions set a variable rather than print one: no fork per include.)
part_of() {
	case $1 in
	db/spool/*) part=formats ;;
	db/*) part=storage ;;
	collector/*) part=collector ;;
	report/*) part=analysis ;;
	cli/*) part=cli ;;
	lib/*) part=lib ;;
	*) part=none ;;
	esac
}

# The room of db/ a path belongs to, into $room: top (db.h, db_internal.h,
# db.c, open.c: the connection every room takes), one of the folders below,
# or "unknown".
db_room_of() {
	case $1 in
	db/spool/*) room=spool ;;
	db/ingest/*) room=ingest ;;
	db/read/*) room=read ;;
	db/store/*) room=store ;;
	db/pages/*) room=pages ;;
	db/*/*) room=unknown ;;
	db/*) room=top ;;
	esac
}

# What each room of db/ may include besides itself (lib/ aside), into $may.
# ingest/ and read/ stand side by side: neither includes the other.  spool/
# is the formats: only the expansion reads them.  The top includes no room:
# it is the floor they all stand on.
db_room_allowed() {
	case $1 in
	ingest) may="spool store pages top" ;;
	read) may="store pages top" ;;
	store) may="pages top" ;;
	pages) may="top" ;;
	*) may="" ;;
	esac
}

# What each part may include besides itself, into $may.
allowed() {
	case $1 in
	lib) may="" ;;
	formats) may="lib" ;;
	collector) may="formats lib" ;;
	storage) may="formats lib" ;;
	analysis) may="storage formats lib" ;;
	cli) may="analysis storage formats lib" ;;
	esac
}

# The room of report/ a path belongs to, into $room: entry (report.c and
# report.h at the top), one of the folders below, or "unknown".
room_of() {
	case $1 in
	report/attribute/*) room=attribute ;;
	report/detect/*) room=detect ;;
	report/findings/*) room=findings ;;
	report/plan/*) room=plan ;;
	report/output/*) room=output ;;
	report/compare/*) room=compare ;;
	report/trace/*) room=trace ;;
	report/*/*) room=unknown ;;
	report/*) room=entry ;;
	esac
}

# What each room of report/ may include besides itself (db/ and lib/ aside),
# into $may.  output/ and compare/ stand side by side, as detect/ and
# attribute/ do: neither of a pair includes the other.  trace/ (the
# timeline export, 'mapprof trace') reads the database alone and includes
# no other room.
room_allowed() {
	case $1 in
	entry) may="output compare trace plan findings detect attribute" ;;
	output) may="plan findings detect attribute" ;;
	compare) may="findings detect attribute" ;;
	plan) may="findings detect attribute" ;;
	findings) may="detect" ;;
	*) may="" ;;
	esac
}

# check_tree ROOT: print one line per include that points the wrong way (or
# names no folder), per file in a folder of db/ or report/ that is no room,
# and one when db/ or report/ has more than two loose .c files; return 1
# when there is one.
check_tree() {
	local root=$1 bad=0 rest file line inc from to from_room part room may loose top
	while IFS= read -r rest; do
		file=${rest%%:*}
		rest=${rest#*:}
		line=${rest%%:*}
		inc=${rest#*\"}
		inc=${inc%%\"*}
		case $inc in
		*/*) ;;
		*)
			echo "$file:$line: includes \"$inc\": name its folder (\"db/x.h\", not \"x.h\")"
			bad=1
			continue
			;;
		esac
		part_of "$file"
		from=$part
		part_of "$inc"
		to=$part
		[ "$to" != none ] || continue
		if [ "$from" = analysis ] && [ "$to" = analysis ]; then
			room_of "$file"
			from_room=$room
			room_of "$inc"
			[ "$room" != "$from_room" ] || continue
			room_allowed "$from_room"
			case " $may " in
			*" $room "*) ;;
			*)
				echo "$file:$line: includes \"$inc\": report/'s room $from_room may not include $room"
				bad=1
				;;
			esac
			continue
		fi
		case $from:$to in
		formats:formats | formats:storage | storage:formats | storage:storage)
			db_room_of "$file"
			from_room=$room
			db_room_of "$inc"
			[ "$room" != "$from_room" ] || continue
			db_room_allowed "$from_room"
			case " $may " in
			*" $room "*) ;;
			*)
				echo "$file:$line: includes \"$inc\": db/'s room $from_room may not include $room"
				bad=1
				;;
			esac
			continue
			;;
		esac
		[ "$to" != "$from" ] || continue
		allowed "$from"
		case " $may " in
		*" $to "*) ;;
		*)
			echo "$file:$line: includes \"$inc\": $from may not include $to"
			bad=1
			;;
		esac
		# SQLite's handle and its file format stay inside db/.
		if [ "$to" = storage ]; then
			case $inc in
			db/db_internal.h | db/pages/*)
				echo "$file:$line: includes \"$inc\": only db/ includes db/db_internal.h and db/pages/"
				bad=1
				;;
			esac
		fi
	done < <(cd "$root" && find collector db report cli lib -name '*.[ch]' 2>/dev/null | sort |
		xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"')
	# Every folder of db/ and report/ is a room the rules above know.
	while IFS= read -r file; do
		db_room_of "$file"
		if [ "$room" = unknown ]; then
			echo "$file: its folder is no room of db/ (add it to tests/e2e/layers.sh and docs/architecture.md)"
			bad=1
		fi
	done < <(cd "$root" && find db -mindepth 2 -name '*.[ch]' 2>/dev/null | sort)
	while IFS= read -r file; do
		room_of "$file"
		if [ "$room" = unknown ]; then
			echo "$file: its folder is no room of report/ (add it to tests/e2e/layers.sh and docs/architecture.md)"
			bad=1
		fi
	done < <(cd "$root" && find report -mindepth 2 -name '*.[ch]' 2>/dev/null | sort)
	# At most two loose .c files at db/'s and report/'s tops: db/'s connection
	# (db.c, open.c) and report/'s entry point.
	for top in db report; do
		loose=$(cd "$root" && find "$top" -maxdepth 1 -name '*.c' | sort)
		if [ "$(printf '%s' "$loose" | grep -c .)" -gt 2 ]; then
			echo "$top/: more than two loose .c files at its top:" $loose
			bad=1
		fi
	done
	return $bad
}

out=$(check_tree "$MAPPROF_SRC") ||
	fail "includes that point the wrong way:"$'\n'"$out"

# The checker must catch a wrong include: db/ reaching up into report/.
copy=$(tmpdir)
(cd "$MAPPROF_SRC" && cp -r --parents collector db report cli lib "$copy/") ||
	fail "cannot copy the tree"
echo '#include "report/detect/detect.h"' >>"$copy/db/read/events.h"
out=$(check_tree "$copy") && fail "the checker passed a tree where db/read/events.h includes report/detect/detect.h"
case $out in
*'db/read/events.h:'*'"report/detect/detect.h"'*) ;;
*) fail "the checker did not name db/read/events.h and its include: $out" ;;
esac
# And the collector reaching a storage file of db/.
cp "$MAPPROF_SRC/db/read/events.h" "$copy/db/read/events.h"
echo '#include "db/db.h"' >>"$copy/collector/hash.h"
out=$(check_tree "$copy") && fail "the checker passed a tree where collector/hash.h includes db/db.h"
cp "$MAPPROF_SRC/collector/hash.h" "$copy/collector/hash.h"

# Inside db/ and report/: each wrong include alone, in a copy that is right otherwise.
# must_fail FILE INCLUDE WHAT: FILE including INCLUDE fails, naming both.
must_fail() {
	local file=$1 inc=$2 what=$3
	echo "#include \"$inc\"" >>"$copy/$file"
	out=$(check_tree "$copy") && fail "the checker passed a tree where $file includes $inc ($what)"
	case $out in
	*"$file:"*"\"$inc\""*) ;;
	*) fail "the checker did not name $file and its include $inc: $out" ;;
	esac
	cp "$MAPPROF_SRC/$file" "$copy/$file"
}
must_fail report/detect/detect_common.h report/findings/findings.h "a detector reaching up into findings"
must_fail report/findings/analysis.h report/plan/plans.h "findings reaching up into the plans"
must_fail report/plan/plans.c report/output/json.h "a plan reaching up into an output"
must_fail report/output/json.c report/compare/diff.h "an output reaching sideways into compare"
must_fail report/compare/diff.c report/output/json.h "compare reaching sideways into an output"
must_fail report/attribute/snippet.c report/detect/occurrence.h "attribution reaching sideways into detect"
must_fail report/output/sarif.c report/report.h "an output reaching up into the entry point"
must_fail report/output/json.c json.h "an include that names no folder"
must_fail report/trace/trace.c report/output/json.h "the trace export reaching sideways into an output"
must_fail report/output/json.c report/trace/trace.h "an output reaching sideways into the trace export"
must_fail db/pages/pagewrite.h db/store/findings.h "the page format reaching up into the findings store"
must_fail db/store/findings.c db/read/events.h "the findings store reaching up into the report's streams"
must_fail db/read/events.c db/ingest/writer.h "a stream reaching sideways into the expansion"
must_fail db/ingest/ingest.c db/read/sound.h "the expansion reaching sideways into the streams"
must_fail db/read/sound.c db/spool/spool.h "a stream reading the collector's formats"
must_fail db/db.c db/pages/pageformat.h "db/'s top reaching into a room"
must_fail db/spool/spool.c db/db.h "the formats reaching into storage"
must_fail report/output/json.c db/db_internal.h "SQLite's handle outside db/"
must_fail cli/record.c db/pages/pagewrite.h "the page format outside db/"
# A folder of db/ or report/ that is no room, and a third loose .c at a top.
mkdir -p "$copy/db/extra"
echo '/* a room nobody named */' >"$copy/db/extra/extra.c"
out=$(check_tree "$copy") && fail "the checker passed a tree with db/extra/, no room of its rules"
case $out in
*"db/extra/extra.c"*) ;;
*) fail "the checker did not name db/extra/extra.c: $out" ;;
esac
rm -r "$copy/db/extra"
touch "$copy/db/loose.c"
out=$(check_tree "$copy") && fail "the checker passed a tree with three loose .c files at db/'s top"
rm "$copy/db/loose.c"
mkdir -p "$copy/report/extra"
echo '/* a room nobody named */' >"$copy/report/extra/extra.c"
out=$(check_tree "$copy") && fail "the checker passed a tree with report/extra/, no room of its rules"
case $out in
*"report/extra/extra.c"*) ;;
*) fail "the checker did not name report/extra/extra.c: $out" ;;
esac
rm -r "$copy/report/extra"
touch "$copy/report/loose1.c" "$copy/report/loose2.c"
out=$(check_tree "$copy") && fail "the checker passed a tree with four loose .c files at report/'s top"
rm "$copy/report/loose1.c" "$copy/report/loose2.c"
# The copy, put back, passes: each failure above was its one wrong include.
out=$(check_tree "$copy") || fail "the checker failed the copy put back as it was:"$'\n'"$out"
exit 0
