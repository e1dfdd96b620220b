# report_bounded_findings.py REPORT.json - the findings of a report as lines
# to compare (tests/e2e/report_bounded.sh): per finding its kind, flavour,
# fingerprint, occurrences, bytes, savings and listed events; the summary's
# totals per kind; each plan's savings.
import json
import sys

d = json.load(open(sys.argv[1]))
for f in d["findings"]:
    ev = f["events"]
    print("finding", f["id"], f["kind"], f["flavour"], f["fingerprint"], f["occurrences"], f["bytes"],
          f["savings_ns"], len(ev), ev[0] if ev else "-", ev[-1] if ev else "-", f["events_truncated"])
s = d["summary"]
print("summary", s["savings_ns"], s["predicted_speedup"], s["findings"], s["occurrences"])
kinds = s["kinds"]
for k in sorted(kinds):
    print("kind", k, json.dumps(kinds[k], sort_keys=True))
for p in d.get("plans", []):
    print("plan", p.get("savings_ns"), len(p.get("findings", p.get("members", []))))
