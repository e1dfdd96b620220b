#!/usr/bin/env bash
# trace_pftrace.sh - 'mapprof trace' at scale (issue 27): Perfetto's native
# protobuf format and a time window.
#
# - '-o run.pftrace' (or --format pftrace) writes a protobuf Trace that
#   Debian's protoc reads back, both raw (--decode_raw) and against the
#   subset of Perfetto's schema written below (the field numbers and wire
#   types of trace_packet.proto, track_event.proto, track_descriptor.proto,
#   process_descriptor.proto, debug_annotation.proto, interned_data.proto),
#   with no field left unknown; on a real recording (samples/round_trip,
#   reported) and on the synthetic run of bench/gen_events.sh (~50 k events,
#   two threads and two devices): as many slices (begin/end pairs, balanced
#   on each track, in time order), processes and lane tracks as the JSON
#   trace of the same database has X events, process_name and thread_name
#   events; the same slice names and categories (interned names resolved);
#   as many arrows (flow ids: one arrow from each slice carrying an id to the
#   next) as the JSON has "s"/"f" pairs;
# - --from/--to keep exactly the events that overlap the window (counted in
#   SQL), in both formats, with times in s, ms, us and ns; a bad time or an
#   empty window is a usage error (2);
# - memory: the .pftrace of a synthetic run ten times larger (~500 k
#   events) needs less than 1.5x the peak RSS.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

mapprof=$MAPPROF_BUILD/mapprof
sample=$MAPPROF_BUILD/samples/round_trip
[ -x "$mapprof" ] || fail "no '$mapprof' (hint: make)"
[ -x "$sample" ] || fail "no sample '$sample' (hint: make samples)"
command -v jq >/dev/null || skip "jq is not installed"
command -v "$PYTHON" >/dev/null || skip "no Python interpreter '$PYTHON'"
command -v protoc >/dev/null || skip "protoc is not installed (make test-deps: protobuf-compiler)"
[ -x /usr/bin/time ] || skip "no /usr/bin/time (apt-get install time)"

dir=$(tmpdir)
cd "$dir" || fail "cannot enter '$dir'"

# The messages 'mapprof trace' writes, with Perfetto's field numbers.
cat >perfetto_subset.proto <<'EOF'
syntax = "proto2";
package perfetto.protos;
message Trace { repeated TracePacket packet = 1; }
message TracePacket {
  optional uint64 timestamp = 8;
  optional uint32 trusted_packet_sequence_id = 10;
  optional TrackEvent track_event = 11;
  optional InternedData interned_data = 12;
  optional uint32 sequence_flags = 13;
  optional TrackDescriptor track_descriptor = 60;
}
message TrackDescriptor {
  optional uint64 uuid = 1;
  optional string name = 2;
  optional ProcessDescriptor process = 3;
  optional uint64 parent_uuid = 5;
  optional CounterDescriptor counter = 8;
}
message CounterDescriptor {}
message ProcessDescriptor { optional int32 pid = 1; optional string process_name = 6; }
message TrackEvent {
  repeated uint64 category_iids = 3;
  repeated DebugAnnotation debug_annotations = 4;
  enum Type { TYPE_UNSPECIFIED = 0; TYPE_SLICE_BEGIN = 1; TYPE_SLICE_END = 2; TYPE_INSTANT = 3; TYPE_COUNTER = 4; }
  optional Type type = 9;
  optional uint64 name_iid = 10;
  optional uint64 track_uuid = 11;
  repeated string categories = 22;
  optional int64 counter_value = 30;
  optional string name = 23;
  repeated fixed64 flow_ids = 47;
}
message DebugAnnotation {
  optional uint64 name_iid = 1;
  optional uint64 uint_value = 3;
  optional int64 int_value = 4;
  optional string string_value = 6;
  optional string name = 10;
}
message InternedData {
  repeated Interned event_categories = 1;
  repeated Interned event_names = 2;
  repeated Interned debug_annotation_names = 3;
}
message Interned { optional uint64 iid = 1; optional string name = 2; }
EOF

# check_pftrace TRACE.pftrace TRACE.json: decode, check, compare; prints
# "slices=N processes=N tracks=N arrows=N".
check_pftrace() {
	protoc --decode_raw <"$1" >/dev/null 2>err || fail "protoc --decode_raw cannot read $1: $(cat err)"
	protoc --proto_path=. --decode=perfetto.protos.Trace perfetto_subset.proto <"$1" >"$1.txt" 2>err ||
		fail "protoc --decode cannot read $1: $(cat err)"
	"$PYTHON" - "$1.txt" "$2" <<'EOF'
import json, re, sys
from collections import Counter, defaultdict

def parse(lines):
    """Protobuf text format -> nested lists of (key, value) pairs."""
    root, stack = [], []
    cur = root
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
        elif line.endswith("{"):
            node = []
            cur.append((line[:-1].strip(), node))
            stack.append(cur)
            cur = node
        else:
            k, v = line.split(": ", 1)
            if v.startswith('"'):
                v = json.loads(v)   # protoc escapes what JSON reads (ASCII names here)
            cur.append((k, v))
    return root

def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default

def all_of(node, key):
    return [v for k, v in node if k == key]

problems = []
with open(sys.argv[1]) as f:
    packets = [v for k, v in parse(f) if k == "packet"]
for n in packets:
    unknown = [k for k, v in n if re.fullmatch(r"[0-9]+", k)]
    if unknown:
        problems.append("unknown fields %s" % unknown)
names, cats, anames = {}, {}, {}
tracks, processes, parents, counters = {}, 0, {}, {}
counts = []   # (counter name, its process's name, ts, value)
slices, ends = [], 0
stacks = defaultdict(int)
flows = Counter()
last_ts = -1
for i, p in enumerate(packets):
    if get(p, "trusted_packet_sequence_id") != "1":
        problems.append("packet %d: no sequence id" % i)
    if i == 0 and get(p, "sequence_flags") not in ("1", "3"):
        problems.append("the first packet does not clear the incremental state")
    idata = get(p, "interned_data")
    if idata:
        for key, table in (("event_names", names), ("event_categories", cats),
                           ("debug_annotation_names", anames)):
            for e in all_of(idata, key):
                iid = get(e, "iid")
                if iid in table:
                    problems.append("iid %s of %s given twice" % (iid, key))
                table[iid] = get(e, "name")
    td = get(p, "track_descriptor")
    if td:
        uuid = get(td, "uuid")
        if uuid in tracks or uuid in (None, "0"):
            problems.append("track uuid %s" % uuid)
        proc = get(td, "process")
        if proc:
            processes += 1
            tracks[uuid] = get(proc, "process_name")
        else:
            if get(td, "parent_uuid") not in tracks:
                problems.append("track %s: parent not described before it" % uuid)
            tracks[uuid] = get(td, "name")
            if get(td, "counter") is not None:
                counters[uuid] = get(td, "parent_uuid")
            else:
                parents[uuid] = get(td, "parent_uuid")
        continue
    ev = get(p, "track_event")
    if not ev:
        problems.append("packet %d: neither a track nor an event" % i)
        continue
    ts = int(get(p, "timestamp", "-1"))
    if ts < last_ts:
        problems.append("packet %d: timestamp %d before %d" % (i, ts, last_ts))
    last_ts = ts
    track = get(ev, "track_uuid")
    if get(ev, "type") == "TYPE_COUNTER":
        if track not in counters:
            problems.append("packet %d: a value on an undescribed counter track %s" % (i, track))
        else:
            counts.append((tracks[track], tracks.get(counters[track]), ts, int(get(ev, "counter_value", "0"))))
        continue
    if track not in parents:
        problems.append("packet %d: event on an undescribed lane track %s" % (i, track))
    if get(ev, "type") == "TYPE_SLICE_BEGIN":
        if get(p, "sequence_flags") not in ("2", "3"):
            problems.append("packet %d: interned names without SEQ_NEEDS_INCREMENTAL_STATE" % i)
        name = get(ev, "name") or names.get(get(ev, "name_iid"))
        cat = (all_of(ev, "categories") or [cats.get(c) for c in all_of(ev, "category_iids")])
        if name is None or None in cat or len(cat) != 1:
            problems.append("packet %d: name or category not resolved" % i)
        for a in all_of(ev, "debug_annotations"):
            if (get(a, "name") or anames.get(get(a, "name_iid"))) is None:
                problems.append("packet %d: annotation name not resolved" % i)
        slices.append((name, cat[0] if cat else None))
        stacks[track] += 1
        for fid in all_of(ev, "flow_ids"):
            flows[fid] += 1
    elif get(ev, "type") == "TYPE_SLICE_END":
        ends += 1
        stacks[track] -= 1
        if stacks[track] < 0:
            problems.append("packet %d: an end with no open slice on its track" % i)
    else:
        problems.append("packet %d: type %s" % (i, get(ev, "type")))
if any(stacks.values()):
    problems.append("unbalanced tracks: %s" % {k: v for k, v in stacks.items() if v})
if ends != len(slices):
    problems.append("%d begins, %d ends" % (len(slices), ends))
arrows = sum(c - 1 for c in flows.values())

with open(sys.argv[2]) as f:
    js = json.load(f)["traceEvents"]
xs = [e for e in js if e["ph"] == "X"]
jprocs = sum(1 for e in js if e["ph"] == "M" and e["name"] == "process_name")
jtracks = sum(1 for e in js if e["ph"] == "M" and e["name"] == "thread_name")
jflows = sum(1 for e in js if e["ph"] == "s")
if Counter(slices) != Counter((e["name"], e["cat"]) for e in xs):
    problems.append("slice names/categories differ from the JSON trace's: %s" %
                    list((Counter(slices) - Counter((e["name"], e["cat"]) for e in xs)).items())[:5])
if (len(slices), processes, len(parents), arrows) != (len(xs), jprocs, jtracks, jflows):
    problems.append("pftrace slices=%d processes=%d tracks=%d arrows=%d, JSON %d %d %d %d" %
                    (len(slices), processes, len(parents), arrows, len(xs), jprocs, jtracks, jflows))
if sorted(set(tracks[u] for u in parents)) != sorted(set(e["args"]["name"] for e in js
                                                           if e["ph"] == "M" and e["name"] == "thread_name")):
    problems.append("lane track names differ from the JSON trace's")
# The counters (transfers beside kernels): the JSON trace's "C" events, value for value.
jnames = {e["pid"]: e["args"]["name"] for e in js if e["ph"] == "M" and e["name"] == "process_name"}
jcounts = [(e["name"], jnames.get(e["pid"]), round(float(e["ts"]) * 1000), e["args"]["value"])
           for e in js if e["ph"] == "C"]
if counts != jcounts:
    problems.append("counters differ from the JSON trace's: %s vs %s" % (counts[:4], jcounts[:4]))
if problems:
    print("; ".join(problems[:10]))
    sys.exit(1)
print("slices=%d processes=%d tracks=%d arrows=%d" % (len(slices), processes, len(parents), arrows))
EOF
}

# A real recording, reported (variables, sources, finding arrows).
timeout 60 "$mapprof" record -o rt.db -- "$sample" >/dev/null 2>err || fail "record failed: $(cat err)"
"$mapprof" report -q --no-html --json rt.json rt.db 2>err || fail "report failed: $(cat err)"
"$mapprof" trace -o rt.json.trace.json rt.db 2>err || fail "trace (json) failed: $(cat err)"
"$mapprof" trace -o rt.pftrace rt.db 2>err || fail "trace (pftrace) failed: $(cat err)"
grep -q "^mapprof: wrote 'rt.pftrace': 25 events, 4 finding arrows$" err || fail "trace said: $(cat err)"
out=$(check_pftrace rt.pftrace rt.json.trace.json) || fail "rt.pftrace: $out"
assert_eq "$out" "slices=25 processes=1 tracks=3 arrows=4" "round_trip's .pftrace"
# --format wins over the extension; the default name follows the format.
"$mapprof" trace --format pftrace -o rt.out rt.db 2>/dev/null || fail "trace --format pftrace failed"
cmp -s rt.out rt.pftrace || fail "--format pftrace wrote something else than -o rt.pftrace"
"$mapprof" trace --format json -o rt2.pftrace rt.db 2>/dev/null || fail "trace --format json failed"
jq -e '.traceEvents | length > 25' rt2.pftrace >/dev/null || fail "--format json did not write JSON"
"$mapprof" trace --format pftrace rt.db 2>err || fail "trace --format pftrace (default path) failed"
grep -q "^mapprof: wrote './trace.pftrace': " err || fail "default .pftrace path: $(cat err)"

# Usage errors: exit 2, nothing written.
for args in "--from 5" "--from 2ms --to 1ms" "--to 1h" "--from -1s" "--format xml"; do
	rc=0
	# shellcheck disable=SC2086
	"$mapprof" trace -o bad.pftrace $args rt.db 2>err || rc=$?
	assert_eq "$rc" 2 "trace $args"
	[ ! -e bad.pftrace ] || fail "trace $args wrote its output"
done

# The synthetic run: ~50 k events on two threads and two devices.
iters=${TRACE_TEST_ITERS:-5555}
bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/s.db" "$iters" || fail "gen_events.sh $iters failed"
"$mapprof" report -q --no-json --no-html s.db 2>/dev/null || fail "report of s.db failed"
"$mapprof" trace -o s.json s.db 2>/dev/null || fail "trace s.db (json) failed"
/usr/bin/time -f '%e %M' -o time1 "$mapprof" trace -o s.pftrace s.db 2>/dev/null || fail "trace s.db (pftrace) failed"
out=$(check_pftrace s.pftrace s.json) || fail "s.pftrace: $out"
case $out in "slices=$((iters * 9)) processes=2 tracks=6 arrows="*) ;; *) fail "synthetic .pftrace: $out" ;; esac

# The window, in both formats: the events that overlap [from, to].
window() {  # window FROM TO FROM_NS TO_NS
	local want got
	want=$(q s.db "SELECT (SELECT COUNT(*) FROM data_op_raw WHERE begin_ns <= $4 AND begin_ns + dur_ns >= $3)
		+ (SELECT COUNT(*) FROM kernel_raw WHERE begin_ns <= $4 AND begin_ns + dur_ns >= $3)")
	[ "$want" -gt 0 ] || fail "window $1..$2: no event in it (the test's mistake)"
	"$mapprof" trace --from "$1" --to "$2" -o w.json s.db 2>/dev/null || fail "trace --from $1 --to $2 (json)"
	assert_eq "$(jq '[.traceEvents[] | select(.ph == "X")] | length' w.json)" "$want" "JSON events in $1..$2"
	jq -e --argjson f "$3" --argjson t "$4" \
		'[.traceEvents[] | select(.ph == "X") | select(.ts * 1000 > $t or (.ts + .dur) * 1000 < $f)] | length == 0' \
		w.json >/dev/null || fail "JSON events outside $1..$2"
	"$mapprof" trace --from "$1" --to "$2" -o w.pftrace s.db 2>/dev/null || fail "trace --from $1 --to $2 (pftrace)"
	got=$(check_pftrace w.pftrace w.json) || fail "w.pftrace: $got"
	case $got in "slices=$want "*) ;; *) fail "pftrace window $1..$2: $got, want $want slices" ;; esac
}
window 1.5ms 2ms 1500000 2000000
window 1000us 0.0012s 1000000 1200000
window 2000123ns 2000900ns 2000123 2000900
# Only --from: everything from there on.
"$mapprof" trace --from 4.5ms -o from.json s.db 2>/dev/null || fail "trace --from 4.5ms"
assert_eq "$(jq '[.traceEvents[] | select(.ph == "X")] | length' from.json)" \
	"$(q s.db "SELECT (SELECT COUNT(*) FROM data_op_raw WHERE begin_ns + dur_ns >= 4500000)
		+ (SELECT COUNT(*) FROM kernel_raw WHERE begin_ns + dur_ns >= 4500000)")" "events from 4.5ms"

# Memory: ten times the events need about as much (caches fill up to
# their caps on the smaller run already).
bash "$MAPPROF_SRC/bench/gen_events.sh" "$dir/big.db" $((iters * 10)) || fail "gen_events.sh failed"
"$mapprof" report -q --no-json --no-html big.db 2>/dev/null || fail "report of big.db failed"
/usr/bin/time -f '%e %M' -o time2 "$mapprof" trace -o big.pftrace big.db 2>/dev/null || fail "trace big.db failed"
read -r t1 m1 <time1
read -r t2 m2 <time2
echo "pftrace: $((iters * 9)) events: $t1 s, $m1 KiB; $((iters * 90)) events: $t2 s, $m2 KiB"
! rss_checked || awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(b < 1.5 * a) }' ||
	fail "peak RSS grows with the events: $m1 KiB, then $m2 KiB"
exit 0
