#!/usr/bin/env bash
# report_large.sh BUILD [MILLIONS...] - 'mapprof report' (JSON and HTML) of
# synthetic runs of 10, 30 and 100 million events (bench/gen_events.sh): the
# seconds and the peak RSS of each, to show that the report's memory does
# not grow with the run (issue 27: at most 256 MiB) and its time is linear;
# then 'mapprof trace' of each in every format (below).
#
# 'make bench-large' runs it (BENCH_LARGE_EVENTS="10 30 100").  Each
# database is read once before its report (cat to /dev/null), as it is in
# the page cache after its recording: otherwise the first report pays for
# reading it from the disk (on the 2-core VM, 10 M took 12.2 s with its
# 708 MB evicted from the cache, 7.1 s right after), and which of the
# three is cold depends on what ran before.
# BENCH_LARGE_COLD=1 skips that read (the report then reads what the cache
# does not hold).  The
# databases are kept in BUILD/bench/large/ (about 55 bytes an event: 5.4 GB
# for 100 M) and made once; a size the disk cannot hold (with room for the
# report's temporary files, in $TMPDIR or /tmp) is skipped, and said so.
set -eu
build=${1:?usage: report_large.sh BUILD [MILLIONS...]}
shift
sizes=${*:-10 30 100}
src=$(cd "$(dirname "$0")/.." && pwd)
dir=$build/bench/large
mkdir -p "$dir"
[ -x /usr/bin/time ] || { echo "bench-large: needs GNU time (/usr/bin/time)" >&2; exit 1; }

uptime
[ "${BENCH_LARGE_COLD:-0}" = 1 ] && echo "databases not read before (BENCH_LARGE_COLD=1)" ||
	echo "each database read once before its report (in the page cache, as after its recording)"
printf '%-10s %10s %10s %12s %10s\n' events "wall s" "cpu s" "peak RSS" "us/event"
for m in $sizes; do
	iters=$((m * 1000000 / 9))
	events=$((iters * 9))
	db=$dir/events-${m}M.db
	if [ ! -s "$db" ]; then
		# The database, as much again for the temporary files and the stored
		# findings, and the page timeline's recorded intervals (about 15 bytes each).
		need_kb=$((events / 1000 * 130))
		avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
		if [ "$avail_kb" -lt "$need_kb" ]; then
			printf '%-10s skipped: %d MiB free in %s, %d MiB needed\n' "${m}M" \
				$((avail_kb / 1024)) "$dir" $((need_kb / 1024))
			continue
		fi
		"$src/bench/gen_events.sh" "$db.tmp" "$iters" && mv "$db.tmp" "$db"
	fi
	[ "${BENCH_LARGE_COLD:-0}" = 1 ] || cat "$db" >/dev/null
	/usr/bin/time -o "$dir/time-${m}M" -f '%e %U %S %M' \
		"$build/mapprof" report -q --json "$dir/report-${m}M.json" --html "$dir/report-${m}M.html" "$db"
	read -r wall user sys rss <"$dir/time-${m}M"
	awk -v m="$m" -v e="$events" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
		printf "%-10s %10.1f %10.1f %8.0f MiB %10.2f\n", m "M", w, u + s, r / 1024, w * 1e6 / e }'
	# The machine's load after it (the wall time is only the report's on a quiet one).
	echo "           load average: $(cut -d' ' -f1-3 /proc/loadavg)"
done

# 'mapprof trace' of the same runs (reported above: variables, sources and
# finding arrows), every format (issue 27: 10 M events within 20 s, memory
# bounded; issue 50: an OTF2 archive in the memory of a .pftrace).  The
# trace is written beside the database and removed: JSON takes about 190
# bytes an event, a .pftrace 90, an OTF2 archive 55 and its events' 20 in
# a temporary file meanwhile ($TMPDIR).  After each size, the OTF2 archive's
# peak RSS beside the .pftrace's.  The first size is then traced again as a
# run on BENCH_LARGE_WIDE threads and devices ("8 8" unless set; 0: not):
# one location per thread and two per device, each of the OTF2 archive's
# locations an event file of its own.  BENCH_LARGE_TRACE=0: the report only.
[ "${BENCH_LARGE_TRACE:-1}" = 0 ] && exit 0
wide=${BENCH_LARGE_WIDE:-8 8}

# trace_row DB LABEL EVENTS FMT: one row; its peak RSS in KiB into $rss.
trace_row() {
	local db=$1 label=$2 events=$3 fmt=$4 per_event need_kb avail_kb wall user sys
	rss=
	case $fmt in json) per_event=200 ;; otf2) per_event=80 ;; *) per_event=100 ;; esac
	need_kb=$((events / 1000 * per_event))
	avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
	if [ "$avail_kb" -lt "$need_kb" ]; then
		printf '%-10s %-8s skipped: %d MiB free in %s, %d MiB needed\n' "$label" "$fmt" \
			$((avail_kb / 1024)) "$dir" $((need_kb / 1024))
		return 0
	fi
	/usr/bin/time -o "$dir/time-trace-$label" -f '%e %U %S %M' \
		"$build/mapprof" trace -o "$dir/trace-$label.$fmt" "$db" 2>/dev/null ||
		{ echo "bench-large: 'mapprof trace' of $db failed" >&2; exit 1; }
	rm -rf "$dir/trace-$label.$fmt"
	read -r wall user sys rss <"$dir/time-trace-$label"
	awk -v m="$label" -v f="$fmt" -v e="$events" -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss" 'BEGIN {
		printf "%-10s %-8s %10.1f %10.1f %8.0f MiB %10.2f\n", m, f, w, u + s, r / 1024, w * 1e6 / e }'
}

# trace_db DB LABEL EVENTS: every format, then the OTF2 archive's peak RSS beside the .pftrace's.
trace_db() {
	local pf=
	for fmt in json pftrace otf2; do
		trace_row "$@" "$fmt"
		case $fmt in pftrace) pf=$rss ;; otf2)
			[ -n "$pf" ] && [ -n "$rss" ] && awk -v o="$rss" -v p="$pf" 'BEGIN {
				printf "           otf2 peak RSS %.1f MiB, pftrace %.1f MiB: %+.1f MiB (%+.0f %%)\n",
					o / 1024, p / 1024, (o - p) / 1024, (o - p) * 100 / p }' ;;
		esac
	done
}

printf '\n%-10s %-8s %10s %10s %12s %10s\n' events trace "wall s" "cpu s" "peak RSS" "us/event"
for m in $sizes; do
	iters=$((m * 1000000 / 9))
	events=$((iters * 9))
	db=$dir/events-${m}M.db
	[ -s "$db" ] || continue
	trace_db "$db" "${m}M" "$events"
done

set -- $sizes
m=$1
[ "$wide" = 0 ] && exit 0
set -- $wide
threads=$1 devices=$2
iters=$((m * 1000000 / 9))
events=$((iters * 9))
db=$dir/events-${m}M-${threads}x$devices.db
if [ ! -s "$db" ]; then
	need_kb=$((events / 1000 * 130))
	avail_kb=$(df -Pk "$dir" | awk 'NR == 2 { print $4 }')
	if [ "$avail_kb" -lt "$need_kb" ]; then
		printf '%-10s skipped: %d MiB free in %s, %d MiB needed\n' "${m}M ${threads}x$devices" \
			$((avail_kb / 1024)) "$dir" $((need_kb / 1024))
		exit 0
	fi
	# Reported once (its findings for the traces), as the runs above were.
	"$src/bench/gen_events.sh" "$db.tmp" "$iters" "$threads" "$devices" &&
		"$build/mapprof" report -q --no-json --no-html "$db.tmp" && mv "$db.tmp" "$db"
fi
[ "${BENCH_LARGE_COLD:-0}" = 1 ] || cat "$db" >/dev/null
echo "the ${m}M run again on $threads threads and $devices devices ($((threads + 2 * devices)) OTF2 locations):"
trace_db "$db" "${m}M-${threads}x$devices" "$events"
