"""check_trace.py TRACE.json - the structure of a Trace Event file.

Valid JSON: {"traceEvents": [...], "displayTimeUnit": "ns"}; every event has
ph, ts and pid; X events have dur >= 0; flows: each id has one "s" and one
"f" (bound to the enclosing slice), the "f" not before the "s", each at the
start or inside an X event of its pid and tid; every pid and tid used by an
X event is named by "M" metadata.  Prints a summary line
"X=N M=N flows=N processes=A,B" on success; problems and exit 1 otherwise.
"""
import bisect
import json
import sys
from collections import defaultdict


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    problems = []
    if doc.get("displayTimeUnit") != "ns":
        problems.append("displayTimeUnit is not ns")
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        print("no traceEvents array")
        return 1
    counts = defaultdict(int)
    slices = defaultdict(list)
    flows = defaultdict(dict)
    pnames, tnames = {}, set()
    for i, e in enumerate(events):
        for k in ("ph", "ts", "pid"):
            if k not in e:
                problems.append("event %d has no %s" % (i, k))
        ph = e.get("ph")
        counts[ph] += 1
        if ph == "X":
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                problems.append("event %d: X without dur >= 0" % i)
                continue
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
        elif ph in ("s", "f"):
            if ph in flows[e.get("id")]:
                problems.append("flow id %r has two %r" % (e.get("id"), ph))
            if ph == "f" and e.get("bp") != "e":
                problems.append("flow end %r not bound to its enclosing slice" % e.get("id"))
            flows[e.get("id")][ph] = e
        elif ph == "M":
            if e.get("name") == "process_name":
                pnames[e["pid"]] = e["args"]["name"]
            elif e.get("name") == "thread_name":
                tnames.add((e["pid"], e["tid"]))
    for key in slices:
        slices[key].sort()
        if key[0] not in pnames:
            problems.append("pid %r has no process_name" % key[0])
        if key not in tnames:
            problems.append("pid %r tid %r has no thread_name" % key)

    def inside(e):
        v = slices.get((e["pid"], e["tid"]), [])
        j = bisect.bisect_right(v, (e["ts"], float("inf")))
        return any(b <= e["ts"] <= end for b, end in v[max(0, j - 50):j])

    for fid, pair in flows.items():
        if set(pair) != {"s", "f"}:
            problems.append("flow id %r is not one s and one f" % fid)
            continue
        if pair["f"]["ts"] < pair["s"]["ts"]:
            problems.append("flow id %r ends before it starts" % fid)
        for ph in ("s", "f"):
            if not inside(pair[ph]):
                problems.append("flow %r %s is in no slice" % (fid, ph))
    for p in problems[:20]:
        print(p)
    if problems:
        return 1
    print("X=%d M=%d flows=%d processes=%s" % (counts["X"], counts["M"], len(flows),
                                               ",".join(sorted(pnames.values()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
