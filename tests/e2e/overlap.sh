#!/usr/bin/env bash
# overlap.sh - transfers beside kernels (issue 50, item 4; docs/report-json.md
# "Overlap"), on real recordings:
#
# - tests/e2e/overlap_nowait.c sends 64 MiB with 'target enter data nowait'
#   while a blocking kernel runs on device 0: report.json's summary.overlap
#   (per device and summed) equals what the database's intervals say,
#   computed here apart with Python's sqlite3 (the data_ops and kernels
#   views, source_raw's nowait entry points, a sort and a merge of the
#   intervals); the overlap is not 0; the nowait transfer time is the
#   enter data's copy; the summary line says the same numbers;
# - the JSON trace's counter "transfers beside kernels" is 1 exactly over
#   those spans (their lengths add up to overlap_ns), and the OTF2
#   archive's metric "transfers beside kernels" says the same
#   (otf2-print);
# - samples/round_trip (no nowait, one thread): overlap 0, no nowait
#   transfer, nothing could overlap, no counter in its trace.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON'"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# check_overlap DB REPORT.json: the report's summary.overlap against the
# database's intervals; prints "overlap=N nowait=N" (device 0's).
check_overlap() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import json, sqlite3, sys

db = sqlite3.connect(sys.argv[1])
rep = json.load(open(sys.argv[2]))["summary"]["overlap"]

def union(iv):
    """Sorted, merged [b, e) intervals (touching ones merged)."""
    out = []
    for b, e in sorted(iv):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out

def measure(iv):
    return sum(e - b for b, e in iv)

def meet(a, b):
    """The intersection of two merged lists."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo < hi:
            out.append([lo, hi])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out

nowait = {r[0] for r in db.execute("SELECT codeptr FROM source_raw WHERE entry LIKE '%nowait%'")}
xfer, nw, kern = {}, {}, {}
for op, src, dst, b, e, cp in db.execute(
        "SELECT op, src_device, dest_device, begin_ns, end_ns, codeptr FROM data_ops"
        " WHERE op IN ('to_device', 'from_device')"):
    dev = dst if op == "to_device" else src
    xfer.setdefault(dev, []).append((b, e))
    if cp in nowait:
        nw.setdefault(dev, []).append((b, e))
for dev, b, e in db.execute("SELECT device, begin_ns, end_ns FROM kernels"):
    kern.setdefault(dev, []).append((b, e))

problems, tot = [], dict.fromkeys(["transfer_ns", "kernel_ns", "overlap_ns", "nowait_transfer_ns",
                                   "nowait_alone_ns", "could_overlap_ns"], 0)
want_devs = sorted(set(xfer) | set(kern))
got = {d["device"]: d for d in rep["devices"]}
if sorted(got) != want_devs:
    problems.append("devices %s, want %s" % (sorted(got), want_devs))
for dev in want_devs:
    x, k, n = union(xfer.get(dev, [])), union(kern.get(dev, [])), union(nw.get(dev, []))
    ov = measure(meet(x, k))
    alone = measure(n) - measure(meet(n, k))
    want = {"transfer_ns": measure(x), "kernel_ns": measure(k), "overlap_ns": ov,
            "nowait_transfer_ns": measure(n), "nowait_alone_ns": alone,
            "could_overlap_ns": max(0, min(alone, measure(k) - ov))}
    for key, v in want.items():
        tot[key] += v
        if got.get(dev, {}).get(key) != v:
            problems.append("device %s %s = %s, want %s" % (dev, key, got.get(dev, {}).get(key), v))
for key, v in tot.items():
    if rep.get(key) != v:
        problems.append("run %s = %s, want %s" % (key, rep.get(key), v))
if problems:
    print("; ".join(problems))
    sys.exit(1)
d0 = got.get(0, {})
print("overlap=%d nowait=%d" % (d0.get("overlap_ns", 0), d0.get("nowait_transfer_ns", 0)))
EOF
}

# counter_spans TRACE.json PID: the [b, e) spans (ns) where the counter is 1, one per line.
counter_spans() {
	"$PYTHON" - "$1" "$2" <<'EOF'
import json, sys
from decimal import Decimal
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
      if e["ph"] == "C" and e["pid"] == int(sys.argv[2])]
b = None
for e in ev:
    assert e["name"] == "transfers beside kernels", e
    t = int(Decimal(str(e["ts"])) * 1000)
    if e["args"]["value"] == 1:
        assert b is None, "a span began twice"
        b = t
    else:
        assert b is not None and t > b, "an end without a begin"
        print(b, t)
        b = None
assert b is None, "a span never ended"
EOF
}

# The nowait program.
# Whether the helper thread runs the copy beside the kernel is up to the
# scheduler: on a loaded 2-core machine it may wait for a core until the
# kernel ends.  Every recording's overlap must equal the intervals' (checked
# each time); at least one of up to 5 must show some.
compile_offload "$MAPPROF_SRC/tests/e2e/overlap_nowait.c" nw -O1 -g
for try in 1 2 3 4 5; do
	record_prog nw.db ./nw >/dev/null
	"$mapprof" report --no-html --json nw.json nw.db >summary.txt 2>&1 || fail "report failed: $(cat summary.txt)"
	out=$(check_overlap nw.db nw.json) || fail "nowait program: $out"
	ov=${out#overlap=}
	ov=${ov%% *}
	[ "$ov" -eq 0 ] || break
	echo "recording $try: the copy ran apart from the kernel (the scheduler's choice); again"
done
[ "$ov" -gt 0 ] || fail "nowait program: no overlap in 5 recordings (the copy should run beside the kernel): $out"
# The nowait transfer time is the enter data's copy: one to_device of 64 MiB from a nowait call site.
want=$(q nw.db "SELECT SUM(end_ns - begin_ns) FROM data_ops d JOIN source_raw s ON s.codeptr = d.codeptr
                WHERE s.entry LIKE '%nowait%' AND d.op = 'to_device' AND d.bytes = 67108864")
assert_eq "${out#*nowait=}" "$want" "nowait transfer time"
# The summary says it: "overlap: X of Y transfer time beside kernels".
grep -q "^  overlap: .* of .* transfer time beside kernels (.*%); nowait transfers alone .*, up to .* could overlap$" \
	summary.txt || fail "the summary has no overlap line: $(cat summary.txt)"

# The JSON trace's counter spans add up to the overlap, and lie where the intervals overlap.
"$mapprof" trace -o nw.trace.json nw.db 2>err || fail "trace failed: $(cat err)"
pid=$(jq '[.traceEvents[] | select(.ph == "M" and .name == "process_name" and (.args.name | startswith("device 0")))][0].pid' \
	nw.trace.json)
[ "$pid" != null ] || fail "no device 0 in the trace"
spans=$(counter_spans nw.trace.json "$pid") || fail "the counter is not a list of spans"
sum=$(awk '{ s += $2 - $1 } END { print s + 0 }' <<<"$spans")
assert_eq "$sum" "$ov" "the trace counter's spans against overlap_ns"
while read -r b e; do
	n=$(q nw.db "SELECT (SELECT COUNT(*) FROM kernels WHERE device = 0 AND begin_ns <= $b AND end_ns >= $e) > 0
	              AND (SELECT COUNT(*) FROM data_ops WHERE op = 'to_device' AND dest_device = 0
	                   AND begin_ns <= $b AND end_ns >= $e) > 0")
	assert_eq "$n" 1 "span [$b, $e) lies inside a kernel and a transfer"
done <<<"$spans"

# OTF2: the metric says the same spans.
if command -v otf2-print >/dev/null && "$mapprof" trace --help 2>&1 | grep -q otf2; then
	"$mapprof" trace -o nw.otf2 nw.db 2>err || fail "trace (otf2) failed: $(cat err)"
	otf2-print --silent nw.otf2/traces.otf2 >/dev/null 2>err || fail "otf2-print --silent: $(cat err)"
	got=$(otf2-print nw.otf2/traces.otf2 | awk '/^METRIC .*"transfers beside kernels"/ {
		v = $NF; sub(/\)$/, "", v); if (v == 1) b = $3; else s += $3 - b } END { print s + 0 }')
	# Its times are shifted by the run's clock start: the spans' lengths are the same.
	assert_eq "$got" "$ov" "the OTF2 metric's spans against overlap_ns"
else
	echo "note: no otf2-print: the OTF2 metric is not checked"
fi

# A sample without nowait: nothing overlapped, nothing could.
record_prog rt.db "$sample" >/dev/null
"$mapprof" report -q --no-html --json rt.json rt.db 2>err || fail "report failed: $(cat err)"
out=$(check_overlap rt.db rt.json) || fail "round_trip: $out"
assert_eq "$(jq -c '.summary.overlap | [.overlap_ns, .nowait_transfer_ns, .could_overlap_ns]' rt.json)" "[0,0,0]" \
	"round_trip's overlap"
[ "$(jq '.summary.overlap.transfer_ns > 0 and .summary.overlap.kernel_ns > 0' rt.json)" = true ] ||
	fail "round_trip has transfers and kernels"
"$mapprof" trace -o rt.trace.json rt.db 2>err || fail "trace failed: $(cat err)"
assert_eq "$(jq '[.traceEvents[] | select(.ph == "C")] | length' rt.trace.json)" 0 "round_trip's counter values"
echo "overlap: nowait program $ov ns beside kernels, round_trip 0"
