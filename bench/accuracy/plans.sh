#!/usr/bin/env bash
# bench/accuracy/plans.sh B - are the fix plans' savings what their patches save?
# (make accuracy runs it after bench/accuracy/run.sh; 'make accuracy-plans' alone)
#
# For each program (PLAN_PROGS, default: the realistic suite's naive
# variants, bench/real/*.c, and the samples): build it with -g, record it
# once and report it: its plans.  Then for each plan that gives a
# patch: apply that patch alone to a copy, build it, and record the naive
# program and the patched one in alternation, PLAN_PAIRS pairs (default 5;
# which goes first alternates), so that whatever state the machine drifts
# into (glibc's mmap threshold decides per process whether host offload's
# device buffers page-fault; some programs' kernels run in two speeds) falls
# on both sides alike.  Per plan, one line:
#
#   program  plan  kind  line  predicted  removed  busy+kernels saved  error  busy saved  error
#
#   predicted   the plan's savings_ns, median over the reports of the naive
#               recordings of the pairs (the plan matched by its directive's
#               line and kind)
#   removed     what 'mapprof diff' (all pairs' recordings) says the patch
#               removed, against what the plan claims: "=" when exactly those
#               (the test in tests/e2e/plans_keep_results.sh), else "+N -M"
#   busy+kernels saved  the median over the pairs of naive - patched time in
#               transfers, allocations and kernels: what a patch changes on
#               the device side.  A copy into fresh device memory that a
#               patch replaces with 'alloc' moves its page faults into the
#               next kernel: busy time alone would count them as saved.
#   busy saved  the same without the kernels
#   kernels     naive - patched kernel time alone (median over the pairs):
#               what the savings model does not price.  On host offload a
#               copy is a memcpy on one core, and the kernels after it read
#               their data from that core's cache, or not: bench/real/cg's
#               kernels ran 69 us a call patched and 100-170 us naive
#               (its plan saves more than predicted), heat's patched kernels
#               ran slower (less).  Natively both match busy+kernels.
#
# The whole table twice, once per state of the allocator (below: 'reuse'
# and 'fresh'), then per state and over both the share of plans within
# +-25 % of the measured busy+kernels saving,
# and the mean relative error.  Noise: a saving the pairs cannot resolve is
# left out of both, and its line says "(noise)": under 0.5 ms, or under half
# the range of the pairs' differences (their spread is larger than the
# saving itself).  PLAN_KEEP=DIR keeps every recording, report and diff
# (each plan's row.json holds the pairs' differences) in DIR.
set -euo pipefail
B=$(cd "${1:-build}" && pwd)
NP=${PLAN_PAIRS:-5}
[[ $NP =~ ^[0-9]+$ ]] && ((NP >= 1)) || { echo "plans.sh: PLAN_PAIRS must be a number from 1, not '$NP'" >&2; exit 2; }
mapprof=${MAPPROF:-$B/mapprof}
OMPCC=${OMPCC:-clang-19}
OFFLOAD_TARGET=${OFFLOAD_TARGET:-x86_64-pc-linux-gnu}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
src=$(cd "$(dirname "$0")/../.." && pwd)
progs=${PLAN_PROGS:-"$(ls "$src"/bench/real/*.c) $(ls "$src"/samples/*.c | grep -v offload_in_library)"}
# The allocator's two states, each a pass of its own: 'reuse' (no device
# buffer is given back: none faults but the first) and 'fresh' (every device
# buffer is mapped anew and faults on first touch).  Left to glibc, each
# process lands in one or the other by its heap's history, and a naive
# recording in one against a patched one in the other measures the
# allocator, not the plan.  A GLIBC_TUNABLES of the caller's: one pass with it.
if [ -n "${GLIBC_TUNABLES+set}" ]; then
	regimes=("caller|$GLIBC_TUNABLES")
else
	regimes=("reuse|glibc.malloc.mmap_threshold=67108864:glibc.malloc.trim_threshold=1073741824"
		"fresh|glibc.malloc.mmap_threshold=4096")
fi
# Host offload's kernels run on the host's cores: on a 2-core machine
# OpenMP threads spinning between regions made one process's kernels run 4x
# slower than the next one's (bench/real/monitor 0.08 or 0.25 s).  The
# programs wait passively here (OMP_WAIT_POLICY, unless the caller set it).
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
out=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-plans.XXXXXX")
trap '[ -n "${PLAN_KEEP:-}" ] && mkdir -p "$PLAN_KEEP" && cp -r "$out"/. "$PLAN_KEEP"/; rm -rf "$out"' EXIT

build() {   # DIR NAME
	(cd "$1" && "$OMPCC" -fopenmp -fopenmp-targets="$OFFLOAD_TARGET" -g -O2 -Wl,-rpath,"$LLVM_DIR/lib" \
		-o "$2" "$2.c" -lm) >"$1/build.log" 2>&1
}

rec() {     # DIR NAME TAG I: the program recorded with the regime's allocator ($tunables)
	(cd "$1" && GLIBC_TUNABLES=$tunables "$mapprof" record -f -o "$3.$4.db" -- "./$2" >/dev/null 2>"$3.$4.err") ||
		{ echo "  $2: record failed: $(cat "$1/$3.$4.err")" >&2; return 1; }
	"$mapprof" report -q --no-html --json "$1/$3.$4.json" "$1/$3.$4.db" 2>/dev/null
}

for regime_entry in "${regimes[@]}"; do
regime=${regime_entry%%|*}
tunables=${regime_entry#*|}
echo "allocator: $regime (GLIBC_TUNABLES=$tunables), OMP_WAIT_POLICY=$OMP_WAIT_POLICY" | tee -a "$out/table.txt"
printf '%-16s %4s %-10s %5s %11s %-8s %20s %7s %12s %7s %12s\n' program plan kind line predicted removed \
	"busy+kernels saved" error "busy saved" error kernels
for f in $progs; do
	name=$(basename "$f" .c)
	dir=$out/$regime/$name
	mkdir -p "$dir"
	cp "$f" "$dir/"
	build "$dir" "$name" || { echo "$name: does not build" >&2; continue; }
	rec "$dir" "$name" naive 1 || continue
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
		for i in $(seq 1 "$NP"); do
			if ((i % 2)); then
				rec "$dir" "$name" "pair$p" "$i" && rec "$copy" "$name" fixed "$i" || ok=0
			else
				rec "$copy" "$name" fixed "$i" && rec "$dir" "$name" "pair$p" "$i" || ok=0
			fi
		done
		[ "$ok" = 1 ] || continue
		"$mapprof" diff -q --json "$copy/diff.json" "$dir"/pair$p.*.db -- "$copy"/fixed.*.db 2>/dev/null ||
			{ echo "$name plan $p: mapprof diff failed" >&2; continue; }
		for i in $(seq 1 "$NP"); do
			"$mapprof" diff -q --json "$copy/pair.$i.json" "$dir/pair$p.$i.db" -- "$copy/fixed.$i.db" 2>/dev/null ||
				{ echo "$name plan $p: mapprof diff failed" >&2; ok=0; }
		done
		[ "$ok" = 1 ] || continue
		python3 - "$dir" "$copy" "$name" "$p" "$NP" <<'PY' | tee -a "$out/table.txt"
import json, sys
d, copy, name, p, npairs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
first = json.load(open("%s/naive.1.json" % d))   # the recording that gave the plans
plan = first["plans"][p]
def key_of(q): return (q["directive"].get("file"), q["directive"].get("line"), q["edit"]["kind"])
key = key_of(plan)
# Predicted from the naive recordings the patch is measured against (each in
# whatever state the machine gave that process); a pair whose naive report
# lacks the plan predicts nothing of it (0), and the line says so.
pairs = [json.load(open("%s/pair%d.%d.json" % (d, p, i))) for i in range(1, npairs + 1)]
preds = sorted(next((q["savings_ns"] for q in r["plans"] if key_of(q) == key), 0) for r in pairs)
npred = sum(1 for r in pairs if any(key_of(q) == key for q in r["plans"]))
pred = preds[len(preds) // 2] if len(preds) % 2 else (preds[len(preds) // 2 - 1] + preds[len(preds) // 2]) / 2
fp = {f["id"]: f["fingerprint"] for f in first["findings"]}
claimed = {fp[i] for i in plan["findings"]}
diff = json.load(open(copy + "/diff.json"))
removed = {f["fingerprint"] for f in diff["removed"]}
extra, missing = len(removed - claimed), len(claimed - removed)
rem = "=" if not extra and not missing else "+%d -%d" % (extra, missing)
def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
# Per pair: the naive recording against the patched one made right before or after it.
devs, busys, kerns = [], [], []
for i in range(1, npairs + 1):
    pd = json.load(open("%s/pair.%d.json" % (copy, i)))
    b, a = pd["before"], pd["after"]
    busys.append(b["busy_ns"]["median"] - a["busy_ns"]["median"])
    kerns.append(b["kernel_ns"]["median"] - a["kernel_ns"]["median"])
    devs.append(busys[-1] + kerns[-1])
busy, dev, kern = median(busys), median(devs), median(kerns)
noise = abs(dev) < 0.5e6 or abs(dev) < (max(devs) - min(devs)) / 2
err = lambda m: 100 * abs(pred - m) / abs(m) if m else float("nan")
ms = lambda v: "%.2f ms" % (v / 1e6)
print("%-16s %4d %-10s %5s %11s %-8s %20s %6.1f%% %12s %6.1f%% %12s%s" % (name, p + 1, plan["edit"]["kind"],
      key[1], ms(pred), rem, ms(dev), err(dev), ms(busy), err(busy), ms(kern), " (noise)" if noise else "") +
      ("" if npred == npairs else " (the plan in %d of %d naive reports)" % (npred, npairs)))
json.dump({"pred": pred, "dev": dev, "busy": busy, "kern": kern, "noise": noise, "devs": devs, "busys": busys,
           "kerns": kerns, "npred": npred},
          open(copy + "/row.json", "w"))
PY
	done
done
echo
done
python3 - "$out" "${regimes[@]%%|*}" <<'PY'
import glob, json, sys
def summary(label, rows):
    meas = [r for r in rows if not r["noise"] and r["dev"]]
    if not rows:
        print("%s: no plan with a patch was measured" % label)
        return
    within = sum(1 for r in meas if abs(r["pred"] - r["dev"]) <= 0.25 * abs(r["dev"]))
    errs = [abs(r["pred"] - r["dev"]) / abs(r["dev"]) for r in meas]
    print("%s: plans measured: %d (%d above the noise); within +-25%% of busy+kernels saved: %d of %d%s"
          % (label, len(rows), len(meas), within, len(meas),
             "; mean relative error %.1f%%" % (100 * sum(errs) / len(errs)) if errs else ""))
    # The same plans against busy time alone: what the savings model prices.
    bmeas = [r for r in meas if r["busy"]]
    bwithin = sum(1 for r in bmeas if abs(r["pred"] - r["busy"]) <= 0.25 * abs(r["busy"]))
    berrs = [abs(r["pred"] - r["busy"]) / abs(r["busy"]) for r in bmeas]
    if bmeas:
        print("%s: within +-25%% of busy saved: %d of %d; mean relative error %.1f%%"
              % (label, bwithin, len(bmeas), 100 * sum(berrs) / len(berrs)))
every = []
for regime in sys.argv[2:]:
    rows = [json.load(open(f)) for f in sorted(glob.glob("%s/%s/*/plan*/row.json" % (sys.argv[1], regime)))]
    summary("allocator " + regime, rows)
    every += rows
if len(sys.argv) > 3:
    summary("both", every)
PY
