#!/usr/bin/env bash
# layers.sh - the includes point one way (README.md, "Architecture"):
#
#     collector/ -> db/ formats (spool, ring)       lib/ <- every stage
#     cli/ -> report/ -> db/ storage -> db/ formats
#
# Each '#include "..."' of every .c and .h under collector/, db/, report/,
# cli/ and lib/ is checked against what its folder may include; a wrong one
# fails the test, naming the file, the line and the include.  Then the
# checker is run on a copy of the tree with one wrong include put in, and
# must fail there: a checker that cannot fail proves nothing.
#
# 'make layers' runs this script alone.
. "$(dirname "$0")/lib.sh"

# The part of the house a path belongs to: formats, storage, collector,
# analysis, cli, lib, or nothing (tests, bench, samples: not checked).
part_of() {
	case $1 in
	db/spool.c | db/spool.h | db/ring.h) echo formats ;;
	db/*) echo storage ;;
	collector/*) echo collector ;;
	report/*) echo analysis ;;
	cli/*) echo cli ;;
	lib/*) echo lib ;;
	*) echo none ;;
	esac
}

# What each part may include besides itself.
allowed() {
	case $1 in
	lib) echo "" ;;
	formats) echo "lib" ;;
	collector) echo "formats lib" ;;
	storage) echo "formats lib" ;;
	analysis) echo "storage formats lib" ;;
	cli) echo "analysis storage formats lib" ;;
	esac
}

# check_tree ROOT: print one line per include that points the wrong way;
# return 1 when there is one.
check_tree() {
	local root=$1 bad=0 file from inc to
	while IFS= read -r file; do
		from=$(part_of "$file")
		while IFS=: read -r line inc; do
			inc=${inc#*\"}
			inc=${inc%%\"*}
			to=$(part_of "$inc")
			[ "$to" != none ] || continue
			[ "$to" != "$from" ] || continue
			case " $(allowed "$from") " in
			*" $to "*) ;;
			*)
				echo "$file:$line: includes \"$inc\": $from may not include $to"
				bad=1
				;;
			esac
		done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$root/$file")
	done < <(cd "$root" && find collector db report cli lib -name '*.[ch]' 2>/dev/null | sort)
	return $bad
}

out=$(check_tree "$MAPPROF_SRC") ||
	fail "includes that point the wrong way:"$'\n'"$out"

# The checker must catch a wrong include: db/ reaching up into report/.
copy=$(tmpdir)
(cd "$MAPPROF_SRC" && cp -r --parents collector db report cli lib "$copy/") ||
	fail "cannot copy the tree"
echo '#include "report/detect/detect.h"' >>"$copy/db/events.h"
out=$(check_tree "$copy") && fail "the checker passed a tree where db/events.h includes report/detect/detect.h"
case $out in
*'db/events.h:'*'"report/detect/detect.h"'*) ;;
*) fail "the checker did not name db/events.h and its include: $out" ;;
esac
# And the collector reaching a storage file of db/.
cp "$MAPPROF_SRC/db/events.h" "$copy/db/events.h"
echo '#include "db/db.h"' >>"$copy/collector/hash.h"
out=$(check_tree "$copy") && fail "the checker passed a tree where collector/hash.h includes db/db.h"
exit 0
