"""trace_otf2_check.py ARCHIVE FROM_NS TO_NS DB... - read an OTF2 archive of
'mapprof trace' back with OTF2's own Python reader (python3-otf2) and hold
it to the databases it was written from (tests/e2e/trace_otf2.sh):

  - every location's times rise, and its Enters and Leaves nest (each Leave
    the innermost open region's), none left open;
  - per process and device, the number and bytes of RmaGet (to the device)
    and RmaPut (from it) are those of the to_device and from_device rows
    of data_ops in the window [FROM_NS, TO_NS]; each completes
    (RmaOpCompleteBlocking, same location and matching id) no earlier,
    inside a DATA_TRANSFER region of an accelerator stream, its remote a
    CPU thread of the same process;
  - regions of role ALLOCATE / DEALLOCATE / kernels / target constructs are
    entered as often as the database has allocations, deletes, kernels and
    target constructs in the window, each on the right kind of location;
  - an accelerator stream never holds two regions at once, and each
    device has as many streams as the most kernels and transfers that
    overlap on it (ends equal to begins do not);
  - each process's first event is its first recorded one in the window,
    moved by where its clock started (CLOCK_MONOTONIC, all on one host);
  - every region with a source file is named '... @FILE:LINE';
  - the events carrying the attribute "finding" are the operations of
    finding_events, with the kind of finding_raw, as often per finding;
  - without a window, the highest "device memory in use" per device is the
    peak of the allocations' running sum.

Several databases: the process groups ('MPI rank N', 'process PID') are
matched to them by rank or pid.  Prints one line of totals:
'gets=N puts=N bytes=N enters=N locations=N max_streams=N'.
"""
import sqlite3
import sys
from collections import Counter, defaultdict

import otf2
from otf2.enums import LocationGroupType, LocationType, RegionRole

archive, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dbs = sys.argv[4:]
problems = []


def problem(msg):
    if len(problems) < 20:
        problems.append(msg)


def proc_key(db):
    c = sqlite3.connect(db)
    row = c.execute("SELECT rank, pid FROM process_raw WHERE id = 1").fetchone()
    pid = c.execute("SELECT pid FROM run_raw WHERE id = 1").fetchone()
    c.close()
    if row and row[0] is not None:
        return "MPI rank %d" % row[0]
    return "process %d" % ((row[1] if row else pid[0]) or 0)


by_name = {proc_key(db): db for db in dbs}

# What the archive holds, counted per (process name, device).
rma = Counter()            # (proc, device, 'get'|'put') -> count
rma_bytes = Counter()
enters = Counter()         # (proc, what) -> count
marked = Counter()         # (proc, finding id, kind) -> events
metric_max = defaultdict(int)
streams = Counter()        # (proc, device) -> stream locations
totals = Counter()


def process_of(group):
    while group.location_group_type == LocationGroupType.ACCELERATOR:
        group = group.creating_location_group
    return group.name


def device_of(group):
    name = group.name
    if group.location_group_type != LocationGroupType.ACCELERATOR:
        return None
    words = name.split()
    i = words.index("device") if "device" in words else -1
    return int(words[i + 1]) if i >= 0 and words[i + 1].lstrip("-").isdigit() else -1


with otf2.reader.open(archive) as tr:
    defs = tr.definitions
    for loc in defs.locations:
        if loc.type == LocationType.ACCELERATOR_STREAM:
            streams[(process_of(loc.group), device_of(loc.group))] += 1
        totals["locations"] += 1
    for r in defs.regions:
        if r.source_file is not None and r.source_file != "" and r.begin_line_number > 0:
            if not r.name.endswith("@%s:%d" % (r.source_file, r.begin_line_number)):
                problem("region '%s' has the source %s:%d" % (r.name, r.source_file, r.begin_line_number))
    last = {}
    first = {}
    stack = defaultdict(list)
    pending = {}
    for loc, ev in tr.events:
        proc, dev = process_of(loc.group), device_of(loc.group)
        if ev.time < last.get(loc, 0):
            problem("%s: time %d after %d" % (loc.name, ev.time, last[loc]))
        last[loc] = ev.time
        name = type(ev).__name__
        if name == "Enter":
            if loc.type == LocationType.ACCELERATOR_STREAM and stack[loc]:
                problem("%s: '%s' inside '%s'" % (loc.name, ev.region.name, stack[loc][-1].name))
            stack[loc].append(ev.region)
            first[proc] = min(first.get(proc, ev.time), ev.time)
            role = ev.region.region_role
            what = {RegionRole.ALLOCATE: "alloc", RegionRole.DEALLOCATE: "delete",
                    RegionRole.WRAPPER: "target", RegionRole.DATA_TRANSFER: "transfer"}.get(role)
            if role == RegionRole.FUNCTION and ev.region.name.startswith("kernel"):
                what = "kernel"
            if what is None:
                what = ev.region.name.split()[0]
            on_stream = loc.type == LocationType.ACCELERATOR_STREAM
            if on_stream != (what in ("kernel", "transfer")):
                problem("%s on the location '%s'" % (ev.region.name, loc.name))
            enters[(proc, what)] += 1
            totals["enters"] += 1
            attrs = {a.name: v for a, v in (ev.attributes or {}).items()}
            for i in range(1, 5):
                key = "finding" if i == 1 else "finding %d" % i
                if key in attrs:
                    marked[(proc, attrs[key], attrs[key + " kind"])] += 1
        elif name == "Leave":
            if not stack[loc] or stack[loc][-1] != ev.region:
                problem("%s: Leave of '%s' with %s open" % (loc.name, ev.region.name,
                                                             [r.name for r in stack[loc]]))
            else:
                stack[loc].pop()
        elif name in ("RmaGet", "RmaPut"):
            kind = "get" if name == "RmaGet" else "put"
            rma[(proc, dev, kind)] += 1
            rma_bytes[(proc, dev, kind)] += ev.bytes
            totals[kind + "s"] += 1
            totals["bytes"] += ev.bytes
            top = stack[loc][-1] if stack[loc] else None
            if loc.type != LocationType.ACCELERATOR_STREAM or top is None or \
                    top.region_role != RegionRole.DATA_TRANSFER:
                problem("%s on '%s' outside a transfer region" % (name, loc.name))
            remote = defs.locations[ev.remote]
            if remote.type != LocationType.CPU_THREAD or process_of(remote.group) != proc:
                problem("%s: remote '%s' is no host thread of %s" % (name, remote.name, proc))
            pending[(loc, ev.matching_id)] = ev.time
        elif name == "RmaOpCompleteBlocking":
            t = pending.pop((loc, ev.matching_id), None)
            if t is None or t > ev.time:
                problem("%s: completion of %d without its operation" % (loc.name, ev.matching_id))
        elif name == "Metric":
            metric_max[(proc, dev)] = max(metric_max[(proc, dev)], ev.values[0])
    for loc, s in stack.items():
        if s:
            problem("%s: regions left open: %s" % (loc.name, [r.name for r in s]))
    if pending:
        problem("%d one-sided operations never completed" % len(pending))

window = "begin_ns <= %d AND end_ns >= %d" % (hi, lo)
starts = {}
for proc, db in by_name.items():
    c = sqlite3.connect(db)
    starts[proc] = c.execute("SELECT start_ns, host FROM run_raw").fetchone()
    c.close()
one_host = len({h for _, h in starts.values()}) == 1
origin = min(s for s, _ in starts.values())
for proc, db in by_name.items():
    c = sqlite3.connect(db)
    # The most device-side events open at once, per device: the streams needed.
    points = defaultdict(list)
    for dev, b, e in c.execute(
            "SELECT CASE WHEN dest_device = (SELECT host_device FROM run_raw) THEN src_device ELSE dest_device END,"
            " begin_ns, end_ns FROM data_ops WHERE op IN ('to_device', 'from_device') AND " + window +
            " UNION ALL SELECT device, begin_ns, end_ns FROM kernels WHERE " + window):
        points[dev] += [(b, 1), (e, -1)]
    for dev, pts in points.items():
        open_now = most = 0
        for _, step in sorted(pts):   # an end (-1) before a begin (+1) at the same time
            open_now += step
            most = max(most, open_now)
        if streams[(proc, dev)] != most:
            problem("%s device %s: %d streams, %d events overlap at most" % (proc, dev, streams[(proc, dev)], most))
    t0 = c.execute("SELECT MIN(b) FROM (SELECT begin_ns AS b FROM data_ops WHERE " + window +
                   " UNION ALL SELECT begin_ns FROM kernels WHERE " + window +
                   " UNION ALL SELECT begin_ns FROM targets WHERE " + window + ")").fetchone()[0]
    if one_host and t0 is not None and first.get(proc) != t0 + starts[proc][0] - origin:
        problem("%s: first event at %s, want %d (+%d)" % (proc, first.get(proc), t0, starts[proc][0] - origin))
    host = c.execute("SELECT host_device FROM run_raw").fetchone()[0]
    want = Counter()
    want_bytes = Counter()
    for dev, op, n, b in c.execute(
            "SELECT CASE WHEN dest_device = ?1 THEN src_device ELSE dest_device END, op, COUNT(*),"
            " TOTAL(bytes) FROM data_ops WHERE op IN ('to_device', 'from_device') AND " + window +
            " GROUP BY 1, 2", (host,)):
        kind = "get" if op == "to_device" else "put"
        want[(proc, dev, kind)] = n
        want_bytes[(proc, dev, kind)] = int(b)
    got = {k: v for k, v in rma.items() if k[0] == proc}
    if got != dict(want):
        problem("%s: one-sided operations %s, data_ops has %s" % (proc, sorted(got.items()), sorted(want.items())))
    got = {k: v for k, v in rma_bytes.items() if k[0] == proc}
    if got != dict(want_bytes):
        problem("%s: bytes %s, data_ops has %s" % (proc, sorted(got.items()), sorted(want_bytes.items())))
    counts = {
        "alloc": c.execute("SELECT COUNT(*) FROM data_ops WHERE op = 'alloc' AND " + window).fetchone()[0],
        "delete": c.execute("SELECT COUNT(*) FROM data_ops WHERE op = 'delete' AND " + window).fetchone()[0],
        "kernel": c.execute("SELECT COUNT(*) FROM kernels WHERE " + window).fetchone()[0],
        "target": c.execute("SELECT COUNT(*) FROM targets WHERE " + window).fetchone()[0],
        "transfer": sum(want.values()),
    }
    for what, n in counts.items():
        if enters[(proc, what)] != n:
            problem("%s: %d '%s' regions entered, the database has %d" % (proc, enters[(proc, what)], what, n))
    has_findings = c.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'finding_event_raw'").fetchone()[0]
    if has_findings:
        want_marked = Counter()
        for fid, kind, n in c.execute(
                "SELECT e.finding, f.kind, COUNT(DISTINCT e.seq) FROM finding_event_raw e"
                " JOIN finding_raw f ON f.id = e.finding JOIN data_ops d ON d.seq = e.seq"
                " WHERE d." + window.replace(" AND ", " AND d.") + " GROUP BY 1, 2"):
            want_marked[(proc, fid, kind)] = n
        got = {k: v for k, v in marked.items() if k[0] == proc}
        if got != dict(want_marked):
            problem("%s: events named by findings %s, finding_events has %s" %
                    (proc, sorted(got.items()), sorted(want_marked.items())))
    if lo <= 0 and hi >= 2 ** 62:
        peak = defaultdict(int)
        use = defaultdict(int)
        for op, dev, b in c.execute(
                "SELECT op, CASE WHEN op = 'alloc' THEN dest_device ELSE src_device END, bytes FROM data_ops"
                " WHERE op IN ('alloc', 'delete') ORDER BY begin_ns, seq"):
            use[dev] = use[dev] + b if op == "alloc" else max(use[dev] - b, 0)
            peak[dev] = max(peak[dev], use[dev])
        for dev, p in peak.items():
            if metric_max[(proc, dev)] != p:
                problem("%s device %s: memory in use peaks at %d, the allocations at %d" %
                        (proc, dev, metric_max[(proc, dev)], p))
    c.close()

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("gets=%d puts=%d bytes=%d enters=%d locations=%d max_streams=%d" % (
    totals["gets"], totals["puts"], totals["bytes"], totals["enters"], totals["locations"],
    max(streams.values()) if streams else 0))
