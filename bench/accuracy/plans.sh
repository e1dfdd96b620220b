#!/usr/bin/env bash
# bench/accuracy/plans.sh B - are the fix plans' savings what their patches save?
# (make accuracy runs it after bench/accuracy/run.sh; 'make accuracy-plans' alone)
#
# For each program (PLAN_PROGS, default: the realistic suite's naive
# variants, bench/real/*.c, and the samples): build it with -g, record it
# ACCURACY_RUNS times (default 3) and report each; then for each plan of the
# first report that gives a patch: apply that patch alone to a copy, build
# and record it as many times, alternating with nothing (the naive side was
# recorded first), and compare with 'mapprof diff'.  Per plan, one line:
#
#   program  plan  kind  line  predicted  removed  busy+kernels saved  error  busy saved  error
#
#   predicted   the plan's savings_ns, median over the naive reports (the
#               plan matched by its directive's line and kind)
#   removed     what 'mapprof diff' says the patch removed, against what the
#               plan claims: "=" when exactly those (the test in
#               tests/e2e/plans_keep_results.sh), else "+N -M"
#   busy+kernels saved  median(naive) - median(patched) of the time in
#               transfers, allocations and kernels: what a patch changes on
#               the device side.  A copy into fresh device memory that a
#               patch replaces with 'alloc' moves its page faults into the
#               next kernel: busy time alone would count them as saved.
#   busy saved  the same without the kernels
#
# Then the share of plans within +-25 % of the measured busy+kernels saving,
# and the mean relative error.  Noise: a plan that saves less than the
# run-to-run spread of the program's own busy time cannot be measured on a
# loaded machine; its line says "(noise)" when the saving is under the
# naive recordings' busy+kernel spread (max - min).
set -euo pipefail
B=$(cd "${1:-build}" && pwd)
N=${ACCURACY_RUNS:-3}
mapprof=${MAPPROF:-$B/mapprof}
OMPCC=${OMPCC:-clang-19}
OFFLOAD_TARGET=${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
src=$(cd "$(dirname "$0")/../.." && pwd)
progs=${PLAN_PROGS:-"$(ls "$src"/bench/real/*.c) $(ls "$src"/samples/*.c | grep -v offload_in_library)"}
out=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-plans.XXXXXX")
trap 'rm -rf "$out"' EXIT

build() {   # DIR NAME
	(cd "$1" && "$OMPCC" -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O2 -Wl,-rpath,"$LLVM_DIR/lib" \
		-o "$2" "$2.c" -lm) >"$1/build.log" 2>&1
}

rec() {     # DIR NAME TAG I
	(cd "$1" && "$mapprof" record -f -o "$3.$4.db" -- "./$2" >/dev/null 2>"$3.$4.err") ||
		{ echo "  $2: record failed: $(cat "$1/$3.$4.err")" >&2; return 1; }
	"$mapprof" report -q --no-html --json "$1/$3.$4.json" "$1/$3.$4.db" 2>/dev/null
}

printf '%-16s %4s %-10s %5s %11s %-8s %20s %7s %12s %7s\n' program plan kind line predicted removed \
	"busy+kernels saved" error "busy saved" error
for f in $progs; do
	name=$(basename "$f" .c)
	dir=$out/$name
	mkdir -p "$dir"
	cp "$f" "$dir/"
	build "$dir" "$name" || { echo "$name: does not build" >&2; continue; }
	ok=1
	for i in $(seq 1 "$N"); do rec "$dir" "$name" naive "$i" || ok=0; done
	[ "$ok" = 1 ] || continue
	np=$(jq '.plans | length' "$dir/naive.1.json")
	for ((p = 0; p < np; p++)); do
		jq -r ".plans[$p].edit.patch // empty" "$dir/naive.1.json" >"$dir/plan$p.patch"
		[ -s "$dir/plan$p.patch" ] || continue
		copy=$dir/plan$p
		mkdir -p "$copy"
		cp "$f" "$copy/"
		(cd "$copy" && patch -p1 -s <"$dir/plan$p.patch") >/dev/null 2>&1 ||
			{ echo "$name plan $p: the patch does not apply" >&2; continue; }
		build "$copy" "$name" || { echo "$name plan $p: the patched program does not build" >&2; continue; }
		ok=1
		for i in $(seq 1 "$N"); do rec "$copy" "$name" fixed "$i" || ok=0; done
		[ "$ok" = 1 ] || continue
		"$mapprof" diff -q --json "$copy/diff.json" "$dir"/naive.*.db -- "$copy"/fixed.*.db 2>/dev/null ||
			{ echo "$name plan $p: mapprof diff failed" >&2; continue; }
		python3 - "$dir" "$copy" "$name" "$p" "$N" <<'PY' | tee -a "$out/table.txt"
import json, sys
d, copy, name, p, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
reps = [json.load(open("%s/naive.%d.json" % (d, i))) for i in range(1, n + 1)]
plan = reps[0]["plans"][p]
key = (plan["directive"].get("line"), plan["edit"]["kind"])
preds = sorted(q["savings_ns"] for r in reps for q in r["plans"]
               if (q["directive"].get("line"), q["edit"]["kind"]) == key)
pred = preds[len(preds) // 2] if len(preds) % 2 else (preds[len(preds) // 2 - 1] + preds[len(preds) // 2]) / 2
fp = {f["id"]: f["fingerprint"] for f in reps[0]["findings"]}
claimed = {fp[i] for i in plan["findings"]}
diff = json.load(open(copy + "/diff.json"))
removed = {f["fingerprint"] for f in diff["removed"]}
extra, missing = len(removed - claimed), len(claimed - removed)
rem = "=" if not extra and not missing else "+%d -%d" % (extra, missing)
b, a = diff["before"], diff["after"]
def med(side, k): return side[k]["median"]
busy = med(b, "busy_ns") - med(a, "busy_ns")
dev = busy + med(b, "kernel_ns") - med(a, "kernel_ns")
spread = (b["busy_ns"]["max"] + b["kernel_ns"]["max"]) - (b["busy_ns"]["min"] + b["kernel_ns"]["min"])
err = lambda m: 100 * abs(pred - m) / abs(m) if m else float("nan")
ms = lambda v: "%.2f ms" % (v / 1e6)
print("%-16s %4d %-10s %5s %11s %-8s %20s %6.1f%% %12s %6.1f%%%s" % (name, p + 1, plan["edit"]["kind"],
      key[0], ms(pred), rem, ms(dev), err(dev), ms(busy), err(busy), " (noise)" if abs(dev) < spread else ""))
json.dump({"pred": pred, "dev": dev, "busy": busy, "noise": abs(dev) < spread},
          open(copy + "/row.json", "w"))
PY
	done
done
python3 - "$out" <<'PY'
import glob, json, sys
rows = [json.load(open(f)) for f in sorted(glob.glob(sys.argv[1] + "/*/plan*/row.json"))]
meas = [r for r in rows if not r["noise"] and r["dev"]]
if not rows:
    print("no plan with a patch was measured")
    sys.exit(0)
within = sum(1 for r in meas if abs(r["pred"] - r["dev"]) <= 0.25 * abs(r["dev"]))
errs = [abs(r["pred"] - r["dev"]) / abs(r["dev"]) for r in meas]
print("plans measured: %d (%d above the noise); within +-25%% of busy+kernels saved: %d of %d%s"
      % (len(rows), len(meas), within, len(meas),
         "; mean relative error %.1f%%" % (100 * sum(errs) / len(errs)) if errs else ""))
PY
