#!/usr/bin/env bash
# layers.sh - the includes point one way (README.md, "Architecture"):
#
#     collector/ -> db/ formats (spool, ring)       lib/ <- every stage
#     cli/ -> report/ -> db/ storage -> db/ formats
#
# and inside report/, between its rooms (docs/architecture.md):
#
#     report.c (the entry point) -> output/, compare/ -> plan/ -> findings/ -> detect/
#                                                          (and attribute/, beside detect/)
#
# Each '#include "..."' of every .c and .h under collector/, db/, report/,
# cli/ and lib/ is checked against what its folder may include; a wrong one
# fails the test, naming the file, the line and the include.  So is an
# include that names no folder ("x.h": write it from the root, as the rules
# read it), a folder of report/ that is no room here, and a third loose .c
# at report/'s top.  Then the checker is run on copies of the tree with one
# wrong include put in, and must fail there: a checker that cannot fail
# proves nothing.
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
# attribute/ do: neither of a pair includes the other.
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
# names no folder), per file in a folder of report/ that is no room, and one
# when report/ has more than two loose .c files; return 1 when there is one.
check_tree() {
	local root=$1 bad=0 rest file line inc from to from_room part room may loose
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
		[ "$to" != "$from" ] || continue
		allowed "$from"
		case " $may " in
		*" $to "*) ;;
		*)
			echo "$file:$line: includes \"$inc\": $from may not include $to"
			bad=1
			;;
		esac
	done < <(cd "$root" && find collector db report cli lib -name '*.[ch]' 2>/dev/null | sort |
		xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"')
	# Every folder of report/ is a room the rules above know.
	while IFS= read -r file; do
		room_of "$file"
		if [ "$room" = unknown ]; then
			echo "$file: its folder is no room of report/ (add it to tests/e2e/layers.sh and docs/architecture.md)"
			bad=1
		fi
	done < <(cd "$root" && find report -mindepth 2 -name '*.[ch]' 2>/dev/null | sort)
	# At most two loose .c files at report/'s top: the stage's entry point.
	loose=$(cd "$root" && find report -maxdepth 1 -name '*.c' | sort)
	if [ "$(printf '%s' "$loose" | grep -c .)" -gt 2 ]; then
		echo "report/: more than two loose .c files at its top:" $loose
		bad=1
	fi
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

# Inside report/: each wrong include alone, in a copy that is right otherwise.
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
# A folder of report/ that is no room, and a third loose .c at the top.
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
