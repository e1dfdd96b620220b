#!/usr/bin/env bash
# report_damaged_rows.sh - 'mapprof report' on a damaged or hostile database
# (issue 13).  Real recordings of samples/round_trip and samples/two_devices,
# edited with sqlite3:
#  - rows that break the schema's meaning (a NULL in each key column, an
#    unknown op code, negative bytes, an end before the begin, times near
#    INT64_MAX, device numbers out of range, in data_op_raw and kernel_raw;
#    a duration near INT64_MAX in run_raw): the report exits 0, the summary
#    and report.json count the damaged rows, no finding kind or occurrence
#    appears that the clean recording does not have (kernel cases excepted:
#    without the kernel an allocation or transfer really is unused), no
#    number in report.json is larger than the clean report's largest of its
#    kind (bytes, nanoseconds), report.html stays under 2 MB;
#  - module_raw.path naming a FIFO: the report ends (within 20 s);
#  - a source record naming /etc/passwd (absolute, and relative to the run's
#    directory): report.html and report.json quote none of it;
#  - --no-source (report and run): no snippet anywhere.
# Every case runs; the failures are listed together at the end.
# MAPPROF_BIN overrides the mapprof binary (to show the failures of another
# build).
. "$(dirname "$0")/lib.sh"

bin=${MAPPROF_BIN:-$MAPPROF_BUILD/mapprof}
command -v jq >/dev/null || skip "jq is missing (apt-get install jq)"
command -v sqlite3 >/dev/null || skip "sqlite3 is missing (apt-get install sqlite3)"
[ -x "$bin" ] || fail "no '$bin' (hint: make)"
dir=$(tmpdir)
failed=()

# bad CASE WHY: note a failed case and go on.
bad() {
	failed+=("$1: $2")
	echo "FAIL $1: $2" >&2
}

# report DB OUTBASE [OPTIONS...]: report on DB into OUTBASE.{json,html,out};
# prints the exit status (124: it hung).
report() {
	local db=$1 out=$2 rc=0
	shift 2
	timeout 20 "$bin" report "$@" --json "$out.json" --html "$out.html" "$db" \
		>"$out.out" 2>&1 || rc=$?
	echo "$rc"
}

for name in round_trip two_devices; do
	prog=$MAPPROF_BUILD/samples/$name
	[ -x "$prog" ] || fail "no sample '$prog' (hint: make samples)"
	"$bin" record -f -o "$dir/$name.db" -- "$prog" >/dev/null 2>&1 || true
	[ -f "$dir/$name.db" ] || fail "$name: no database"
	rc=$(report "$dir/$name.db" "$dir/$name.clean")
	[ "$rc" = 0 ] || fail "$name: the clean report failed: $(cat "$dir/$name.clean.out")"
done

# The largest (or the sum: AGG add) of the numbers under keys that hold
# WORD, and the findings as "kind/flavour occurrences" lines, per kind and
# flavour.
agg_of() {   # JSON WORD AGG
	jq "[paths(numbers) as \$p | select(\$p[-1] | tostring | test(\"$2\"))
	     | getpath(\$p)] | $3 // 0" "$1"
}
finding_counts() {
	jq -r '[.findings[] | {k: "\(.kind)/\(.flavour)", o: .occurrences}] | group_by(.k)[]
	       | "\(.[0].k) \(map(.o) | add)"' "$1" | sort
}

# damaged CASE SAMPLE TABLE COUNT SQL [kernel]: inject with SQL, report, check.
damaged() {
	local case=$1 name=$2 table=$3 count=$4 sql=$5 kernel=${6:-} db out rc got clean_max max
	db=$dir/$case.db
	out=$dir/$case
	cp "$dir/$name.db" "$db"
	sqlite3 "$db" "$sql" || { bad "$case" "sqlite3 failed on: $sql"; return; }
	rc=$(report "$db" "$out")
	if [ "$rc" != 0 ]; then
		bad "$case" "report exited $rc: $(tail -n 3 "$out.out")"
		return
	fi
	grep -q "warning: $count damaged rows\? in $table" "$out.out" ||
		bad "$case" "the summary does not warn of $count damaged row(s) in $table: $(head -n 2 "$out.out")"
	case $table in
	data_op_raw) key=data_ops ;;
	kernel_raw) key=kernels ;;
	*) key=run ;;
	esac
	got=$(jq ".run.damaged_rows.$key" "$out.json" 2>/dev/null)
	[ "$got" = "$count" ] || bad "$case" "report.json run.damaged_rows.$key is '$got', want $count"
	# Sizes: none over the sum of the clean report's; times: none over its largest.
	for word in bytes:add _ns:max; do
		bound=$(agg_of "$dir/$name.clean.json" "${word%:*}" "${word#*:}")
		max=$(agg_of "$out.json" "${word%:*}" max)
		jq -n "$max <= $bound" | grep -q true ||
			bad "$case" "a '${word%:*}' number in report.json is $max, over the clean report's bound $bound"
	done
	min=$(jq '[paths(numbers) as $p | getpath($p)] | min // 0' "$out.json")
	jq -n "$min >= -1" | grep -q true || bad "$case" "report.json holds the number $min"
	# No finding beyond the clean run's: per kind/flavour, no more occurrences.
	while read -r kf n; do
		[ -n "$kf" ] || continue
		want=$(finding_counts "$dir/$name.clean.json" | awk -v k="$kf" '$1 == k { print $2 }')
		if [ -z "$want" ]; then
			[ -n "$kernel" ] && case $kf in unused_*) continue ;; esac
			bad "$case" "a new finding: $kf ($n occurrences), not in the clean report"
		elif [ "$n" -gt "$want" ]; then
			bad "$case" "$kf: $n occurrences, the clean report has $want"
		fi
	done < <(finding_counts "$out.json")
	size=$(stat -c %s "$out.html" 2>/dev/null || echo 0)
	[ "$size" -lt 2000000 ] || bad "$case" "report.html is $size bytes"
}

# The data operations to damage: a to_device and a from_device (both take
# part in findings), an alloc, a delete; and the first kernel.
for name in round_trip two_devices; do
	db=$dir/$name.db
	to=$(q "$db" "SELECT seq FROM data_op_raw WHERE kind IN (2, 18) ORDER BY seq LIMIT 1")
	from=$(q "$db" "SELECT seq FROM data_op_raw WHERE kind IN (3, 19) ORDER BY seq LIMIT 1")
	alloc=$(q "$db" "SELECT seq FROM data_op_raw WHERE kind IN (1, 17) ORDER BY seq LIMIT 1")
	del=$(q "$db" "SELECT seq FROM data_op_raw WHERE kind IN (4, 20) ORDER BY seq LIMIT 1")
	kern=$(q "$db" "SELECT seq FROM kernel_raw ORDER BY seq LIMIT 1")
	[ -n "$to" ] && [ -n "$from" ] && [ -n "$alloc" ] && [ -n "$del" ] && [ -n "$kern" ] ||
		fail "$name: the recording lacks a kind of event"
	for col in kind src_dev dst_dev bytes begin_ns dur_ns; do
		damaged "$name-null-$col" "$name" data_op_raw 1 \
			"UPDATE data_op_raw SET $col = NULL WHERE seq = $to"
	done
	damaged "$name-null-alloc-bytes" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET bytes = NULL WHERE seq = $alloc"
	damaged "$name-unknown-op" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET kind = 99 WHERE seq = $from"
	damaged "$name-negative-bytes" "$name" data_op_raw 2 \
		"UPDATE data_op_raw SET bytes = -4096 WHERE seq IN ($to, $from)"
	damaged "$name-negative-alloc" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET bytes = -2048 WHERE seq = $alloc"
	damaged "$name-end-before-begin" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET dur_ns = -1000000 WHERE seq = $from"
	damaged "$name-begin-int64-max" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET begin_ns = 9223372036854775000 WHERE seq = $to"
	damaged "$name-negative-begin" "$name" data_op_raw 1 \
		"UPDATE data_op_raw SET begin_ns = -9223372036854775000 WHERE seq = $del"
	damaged "$name-dur-int64-max" "$name" data_op_raw 2 \
		"UPDATE data_op_raw SET dur_ns = 9223372036854775000 WHERE seq IN ($alloc, $del)"
	damaged "$name-huge-bytes" "$name" data_op_raw 2 \
		"UPDATE data_op_raw SET bytes = 9223372036854775000 WHERE seq IN ($to, $alloc)"
	damaged "$name-huge-device" "$name" data_op_raw 2 \
		"UPDATE data_op_raw SET dst_dev = 2147483648000 WHERE seq = $to;
		 UPDATE data_op_raw SET src_dev = -7 WHERE seq = $from"
	damaged "$name-kernel-null-device" "$name" kernel_raw 1 \
		"UPDATE kernel_raw SET device = NULL WHERE seq = $kern" kernel
	damaged "$name-kernel-times" "$name" kernel_raw 2 \
		"UPDATE kernel_raw SET begin_ns = 9223372036854775000 WHERE seq = $kern;
		 UPDATE kernel_raw SET dur_ns = -5 WHERE seq = (SELECT MAX(seq) FROM kernel_raw)" kernel
	damaged "$name-run-duration" "$name" run_raw 1 \
		"UPDATE run_raw SET end_ns = 9223372036854775000"
done

# A FIFO as a module path: libdw's open would block forever.
fifo=$dir/module.fifo
mkfifo "$fifo" || fail "cannot make a FIFO"
cp "$dir/round_trip.db" "$dir/fifo.db"
q "$dir/fifo.db" "UPDATE module_raw SET path = '$fifo'"
rc=$(report "$dir/fifo.db" "$dir/fifo")
[ "$rc" = 0 ] || bad fifo-module "report exited $rc (124: it hung on the FIFO): $(tail -n 2 "$dir/fifo.out")"

# Source records naming a file that is not a source of the program.
[ -r /etc/passwd ] && grep -q '^root:x:0:0' /etc/passwd || fail "no /etc/passwd to try"
rel=$(realpath --relative-to="$(q "$dir/round_trip.db" "SELECT cwd FROM run_raw")" /etc/passwd)
for path in /etc/passwd "$rel"; do
	case=passwd-$( [ "${path#/}" = "$path" ] && echo relative || echo absolute)
	cp "$dir/round_trip.db" "$dir/$case.db"
	q "$dir/$case.db" "UPDATE source_raw SET psource = ';$path;main;1;1;;',
		map_names = '[\";a;$path;2;1;;\", \";b;$path;3;1;;\"]'"
	rc=$(report "$dir/$case.db" "$dir/$case")
	[ "$rc" = 0 ] || bad "$case" "report exited $rc"
	grep -q 'root:x:0:0' "$dir/$case.json" "$dir/$case.html" "$dir/$case.out" &&
		bad "$case" "the report quotes /etc/passwd (named by the source record as '$path')"
	[ "$(q "$dir/$case.db" "SELECT count(*) FROM snippet WHERE text LIKE '%root:x:0:0%'")" = 0 ] ||
		bad "$case" "the snippet table holds /etc/passwd"
done

# --no-source: no snippet at all, from report and from run.
cp "$dir/round_trip.db" "$dir/nosrc.db"
grep -q '"snippet"' "$dir/round_trip.clean.json" || fail "the clean report has no snippet to leave out"
rc=$(report "$dir/nosrc.db" "$dir/nosrc" --no-source)
if [ "$rc" != 0 ]; then
	bad no-source "report --no-source exited $rc: $(tail -n 2 "$dir/nosrc.out")"
else
	grep -q '"snippet"' "$dir/nosrc.json" "$dir/nosrc.html" && bad no-source "report.json or report.html holds a snippet"
	[ "$(q "$dir/nosrc.db" "SELECT count(*) FROM snippet")" = 0 ] || bad no-source "the snippet table is not empty"
fi
mkdir -p "$dir/run"
if (cd "$dir/run" && timeout 60 "$bin" run -q --no-source -o nosrc -- "$MAPPROF_BUILD/samples/round_trip" \
	>run.out 2>&1); then
	grep -q '"snippet"' "$dir/run/report.json" "$dir/run/report.html" && bad run-no-source "run --no-source quoted source"
else
	bad run-no-source "run --no-source failed: $(tail -n 2 "$dir/run/run.out")"
fi

if [ "${#failed[@]}" -gt 0 ]; then
	fail "${#failed[@]} case(s) failed:$(printf '\n  %s' "${failed[@]}")"
fi
echo "ok: damaged rows, FIFO module, /etc/passwd source, --no-source"
