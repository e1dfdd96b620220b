#!/usr/bin/env bash
# gpu-check.sh - the whole GPU check in one command, run inside a GPU bundle
# ('make gpu-bundle', docs/gpu.md; issue #28).
#
# usage: gpu-check.sh [--out DIR] [--rounds N] [--quick] [--small] [--budget SECONDS]
#                     [--timeout SECONDS] [--check-mib N] [--bundle DIR] [--sides SIDES]
#                     [--host-attribution FILE] [--only REGEX] [--keep-detail]
#
# Every step runs under 'timeout' and is logged; a step that fails is
# recorded and the next one runs: the results folder is always written.
# Steps, in the order of what only a GPU can answer first:
#   1. setup: unpack the bundle's libraries (setup.sh) unless done, source env.sh
#   2. environment: nvidia-smi / rocm-smi, uname, CPUs, MANIFEST, the OpenMP
#      device list (programs/check/devices with LIBOMPTARGET_INFO=1)
#   3. every program of programs/check, programs/samples, programs/real (both
#      variants), programs/fixed, and programs/host-samples and host-real
#      when the bundle carries host-offload builds (GPU_BUNDLE_HOST=1): native
#      (n), under the empty tool (f, the floor), 'mapprof record' (r) and the
#      hash-everything floor (h: lib/libhash-floor.so under 'mapprof record',
#      issue #29), in a balanced order for --rounds rounds (median wall times,
#      and per round mapprof over the hash floor); once under the independent
#      tracer; the data op and kernel
#      counts of mapprof's database against the tracer's; 'mapprof report';
#      the source attribution of findings, data ops and constructs
#   4. the async-hash answer per case of programs/check/async_*: mapprof's
#      hash of the from-device transfer and the tracer's (taken at the data
#      op's end, as the published tool does) against the program's hashes of
#      the fresh (after full synchronisation) and stale (before the kernel)
#      content
#   5. results.md (the tables), results.tsv, and results.tar.gz (the rest)
#
# Results folder (default ./gpu-results), at most 8 files at its top:
#   results.md  results.tsv  devices.txt  async.tsv  attribution.tsv  log.txt
#   results.tar.gz (detail/: every run's output, traces, report.json, small
#   databases; the folder detail/ itself is removed once archived, unless
#   --keep-detail)
#
# --budget (default 420 s): wall time for the whole run.  Past 40 % of it the
# realistic suite runs its small inputs, past 60 % each program runs one
# round, past 90 % a program's rounds stop after the current one, past 100 %
# the programs left are skipped (each listed as such).
# --quick: one round and the small inputs from the start.
# --small: the realistic suite's small inputs from the start, all the rounds.
# --sides SIDES: which runs each round makes, of n f r h (default nfrh; r is
# always made: the counts, report and attribution need its database).
# --check-mib: the large buffers of the async-hash cases (default 64 MiB).
# --only REGEX: only the programs whose GROUP/NAME matches (grep -E), e.g. 'check/'.
# --host-attribution FILE: attribution.tsv of a host-offload run of this
# script (tests/e2e/gpu_check.sh writes one): each program's is diffed
# against it (default: host-attribution.tsv in the bundle, if there).
#
# Exit 0 when it ran to the end (a difference found is a result, in the
# tables); 2 on a usage error; 3 when there is no bundle to run.

# No -e, no -u: a failing step must not end the run, and env.sh is sourced.
set +e +u
export LC_ALL=C

out=./gpu-results
rounds=3
quick=0
budget=420
run_timeout=120
check_mib=64
bundle=
host_attrib=
only=
keep_detail=0
small_all=0
sides=nfrh

usage() {
	sed -n '5,7p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--out | --rounds | --budget | --timeout | --check-mib | --bundle | --host-attribution | --only | --sides)
		[ $# -ge 2 ] || { echo "gpu-check: error: '$1' needs a value" >&2; usage; } ;;
	esac
	case $1 in
	--out) out=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--quick) quick=1; shift ;;
	--small) small_all=1; shift ;;
	--sides) sides=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	--timeout) run_timeout=$2; shift 2 ;;
	--check-mib) check_mib=$2; shift 2 ;;
	--bundle) bundle=$2; shift 2 ;;
	--host-attribution) host_attrib=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--keep-detail) keep_detail=1; shift ;;
	-h | --help) usage ;;
	*) echo "gpu-check: error: unknown option '$1'" >&2; usage ;;
	esac
done
for v in "$rounds" "$budget" "$run_timeout" "$check_mib"; do
	case $v in '' | *[!0-9]*) echo "gpu-check: error: '$v' is not a number" >&2; usage ;; esac
done
[ "$rounds" -ge 1 ] || rounds=1
case $sides in
'' | *[!nfrh]*) echo "gpu-check: error: --sides '$sides': letters of n f r h" >&2; usage ;;
esac
# Each side once, r always (the counts and the report read its database).
sides=$(echo "$sides" | fold -w1 | awk '!s[$0]++' | tr -d '\n')
case $sides in *r*) ;; *) sides=${sides}r ;; esac
[ "$quick" = 1 ] && rounds=1

# The bundle: --bundle, else this script's own directory when it holds a
# MANIFEST (the copy inside the bundle), else $MAPPROF_BUNDLE.
here=$(cd "$(dirname "$0")" && pwd)
if [ -z "$bundle" ]; then
	if [ -f "$here/MANIFEST" ]; then bundle=$here
	elif [ -n "${MAPPROF_BUNDLE:-}" ]; then bundle=$MAPPROF_BUNDLE
	else
		echo "gpu-check: error: no bundle: run the copy inside the bundle, or give --bundle DIR" >&2
		exit 3
	fi
fi
bundle=$(cd "$bundle" 2>/dev/null && pwd) || { echo "gpu-check: error: no bundle directory '$bundle'" >&2; exit 3; }
[ -n "$host_attrib" ] || { [ -f "$bundle/host-attribution.tsv" ] && host_attrib=$bundle/host-attribution.tsv; }

mkdir -p "$out" || { echo "gpu-check: error: cannot make '$out'" >&2; exit 3; }
out=$(cd "$out" && pwd)
detail=$out/detail
rm -rf "$detail" "$out/results.tar.gz"
mkdir -p "$detail/programs" "$detail/work"
log=$out/log.txt
: >"$log"
steps=$detail/steps.tsv
: >"$steps"

# --- clock and log -----------------------------------------------------------
now_ns() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME/[.,]/}
		echo $((10#$t * 1000))
	else
		date +%s%N
	fi
}
t_start=$(now_ns)
elapsed_s() { echo $((($(now_ns) - t_start) / 1000000000)); }
say() { echo "[$(elapsed_s)s] $*" | tee -a "$log"; }
secs() { awk -v n="$1" 'BEGIN { if (n == "" || n == "n/a") print "n/a"; else printf "%.3f", n / 1e9 }'; }

# step NAME TIMEOUT OUTFILE CMD...: run CMD under timeout, stdout and stderr
# to OUTFILE, logged with its status and time in steps.tsv.  Returns CMD's
# status (124: timed out).
step() {
	local name=$1 t=$2 of=$3 rc t0 t1
	shift 3
	t0=$(now_ns)
	timeout -k 5 "$t" "$@" >"$of" 2>&1
	rc=$?
	t1=$(now_ns)
	printf '%s\t%s\t%s\n' "$name" "$rc" "$(secs $((t1 - t0)))" >>"$steps"
	[ "$rc" -eq 0 ] || say "step '$name' exited with $rc (output: ${of#$out/})"
	return "$rc"
}

say "gpu-check: bundle $bundle, results in $out, rounds $rounds, sides $sides, budget ${budget}s, quick $quick, small $small_all"

# --- 1. setup ----------------------------------------------------------------
# env_ok: env.sh was written for this bundle where it is now (a bundle set up
# on another machine and carried has another path) and its prefix holds the
# runtime.
env_ok() {
	local p
	[ -f "$bundle/env.sh" ] && grep -qF "MAPPROF_BUNDLE='$bundle'" "$bundle/env.sh" || return 1
	p=$(sed -n "s/^export MAPPROF_PREFIX='\(.*\)'\$/\1/p" "$bundle/env.sh")
	[ -n "$p" ] && [ -f "$p/usr/lib/llvm-19/lib/libomptarget.so.19.1" ]
}
if ! env_ok && [ -f "$bundle/setup.sh" ]; then
	say "setup: unpacking the bundle's libraries"
	if ! step setup 240 "$detail/setup.txt" bash "$bundle/setup.sh"; then
		# Not in the bundle (read-only, or full): a prefix of our own.
		alt=${TMPDIR:-/tmp}/mapprof-gpu-prefix.$$
		say "setup: retrying with the prefix '$alt'"
		step setup-retry 240 "$detail/setup-retry.txt" bash "$bundle/setup.sh" "$alt"
		if ! env_ok && [ -f "$alt/usr/lib/llvm-19/lib/libomptarget.so.19.1" ]; then
			# setup.sh unpacked but could not write env.sh: its paths by hand.
			export LD_LIBRARY_PATH=$alt/usr/lib/llvm-19/lib:$alt/usr/lib/x86_64-linux-gnu:$alt/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
			say "setup: no env.sh; LD_LIBRARY_PATH set to the prefix '$alt'"
		fi
	fi
fi
if env_ok; then
	# shellcheck disable=SC1091
	. "$bundle/env.sh"
	say "setup: sourced env.sh (LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-})"
elif [ -f "$bundle/env.sh" ]; then
	# shellcheck disable=SC1091
	. "$bundle/env.sh"
	say "warning: env.sh is not this bundle's, or its prefix lacks libomptarget: sourced it anyway"
else
	say "setup: no env.sh in the bundle: using the system's libraries"
fi
unset MAPPROF_COLLECTOR OMP_TOOL_LIBRARIES MAPPROF_TRACER_OUT

# LLVM 19's libomptarget opens the driver by its development name
# (dlopen("libcuda.so"), "libhsa-runtime64.so"), which a machine with only
# the driver's runtime package lacks (libcuda.so.1): then every program
# silently runs on the host.  Where the development name does not load (or is
# CUDA's stub) but the runtime name does, a link to the machine's own
# library under that name goes first on LD_LIBRARY_PATH (nothing of the
# driver is carried).
driver_shim() {
	local dev rt init rc path rc1 shim
	[ -n "$py" ] || { say "driver: no python3 to look for the GPU driver"; return; }
	: >"$detail/driver.txt"
	while read -r dev rt init; do
		# One process per name: a stub loaded first would answer for both.
		read -r rc _ < <(driver_probe "$dev" "$init")
		read -r rc1 path < <(driver_probe "$rt" "$init")
		echo "$dev: ${rc:-?}; $rt: ${rc1:-?} ${path:-}" >>"$detail/driver.txt"
		if [ "$rc" = 0 ]; then
			say "driver: $dev loads and initialises"
		elif [ "$rc1" = 0 ] && [ -n "$path" ] && [ -e "$path" ]; then
			shim=${TMPDIR:-/tmp}/mapprof-gpu-driver.$$
			# shellcheck disable=SC2064  # the folder now: $shim is local
			trap "rm -rf '$shim'" EXIT
			mkdir -p "$shim" && ln -sf "$path" "$shim/$dev" &&
				export LD_LIBRARY_PATH=$shim${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
			say "driver: $dev does not load (${rc:-?}), $rt does: linked $shim/$dev -> $path"
		elif [ "$rc" != none ] || [ "$rc1" != none ]; then
			say "driver: $dev (${rc:-?}) and $rt (${rc1:-?}) do not initialise"
		fi
	done <<'LIST'
libcuda.so libcuda.so.1 cuInit
libhsa-runtime64.so libhsa-runtime64.so.1 hsa_init
LIST
}
# driver_probe NAME INIT: "RC PATH": what INIT returned (0: a device driver
# that works; none: NAME does not load) and the file NAME loaded.
driver_probe() {
	timeout 60 python3 - "$1" "$2" <<'PY' 2>>"$log"
import ctypes, sys
name, init = sys.argv[1], sys.argv[2]
try:
    lib = ctypes.CDLL(name)
except OSError:
    print("none -")
    sys.exit(0)
rc = lib.cuInit(0) if init == "cuInit" else lib.hsa_init()
path = "-"
stem = name.split(".so")[0] + ".so"
with open("/proc/self/maps") as f:
    for line in f:
        if stem in line.rsplit("/", 1)[-1]:
            path = line.split()[-1]
            break
print(rc, path)
PY
}

mapprof=$bundle/bin/mapprof
tracer=$bundle/lib/libtracer.so
empty_tool=$bundle/lib/libempty-tool.so
hash_floor=$bundle/lib/libhash-floor.so
[ -x "$mapprof" ] || say "warning: no '$mapprof': nothing will be recorded"
[ -f "$tracer" ] || say "warning: no '$tracer': nothing will be traced"
[ -f "$empty_tool" ] || say "warning: no '$empty_tool': no floor"
case $sides in *h*) [ -f "$hash_floor" ] || say "warning: no '$hash_floor': no hash floor" ;; esac
py=
# GPU_CHECK_NO_PYTHON=1: as on a machine without python3 (tests the fallbacks).
if [ -z "${GPU_CHECK_NO_PYTHON:-}" ] && command -v python3 >/dev/null 2>&1 &&
	python3 -c 'import sqlite3, json' 2>/dev/null; then
	py=python3
else
	say "warning: no python3 with sqlite3: database counts and hashes from sqlite3 if present, else n/a"
fi

driver_shim

# The database and report readers (python3: sqlite3 may be absent there).
helper=$detail/helper.py
cat >"$helper" <<'PY'
import json, os, sqlite3, sys

def db(path):
    return sqlite3.connect("file:" + path + "?mode=ro", uri=True)

def counts(path):
    c = db(path)
    n = dict(c.execute("SELECT op, COUNT(*) FROM data_ops GROUP BY op").fetchall())
    k = c.execute("SELECT COUNT(*) FROM kernels").fetchone()[0]
    main = ["alloc", "to_device", "from_device", "delete"]
    line = " ".join("%s=%d" % (o, n.pop(o, 0)) for o in main) + " kernel=%d" % k
    other = sum(n.values())
    print(line + (" other=%d" % other if other else ""))

def runinfo(path):
    c = db(path)
    r = c.execute("SELECT wall_ns, status, exit_status, events_lost FROM run").fetchone()
    print(" ".join("n/a" if v is None else str(v) for v in r) if r else "n/a n/a n/a n/a")

def base(p):
    return os.path.basename(p) if p else "?"

def attribution(path, report, prog):
    # One line per distinct place: what (finding / data op / construct), where.
    lines = []
    try:
        with open(report) as f:
            rep = json.load(f)
        for fd in rep.get("findings", []):
            locs = fd.get("locations") or [{}]
            loc = locs[0]
            lines.append("finding\t%s/%s\t%s:%s\t%s" % (fd.get("kind"), fd.get("flavour"),
                         base(loc.get("file")), loc.get("line", "?"), loc.get("function") or "?"))
        for pl in rep.get("plans", []):
            d = pl.get("directive") or {}
            e = pl.get("edit") or {}
            lines.append("plan\t%s\t%s:%s\t%s" % (e.get("kind"), base(d.get("file")),
                         d.get("line", "?"), e.get("clauses")))
    except (OSError, ValueError) as e:
        lines.append("report\tunreadable\t%s\t-" % e.__class__.__name__)
    try:
        c = db(path)
        # Distinct places only, no counts: the inputs (--quick) change counts.
        for r in c.execute("SELECT DISTINCT op, file, line, function, variable, origin "
                           "FROM data_op_sources"):
            # A variable known only by its address differs run to run.
            var = "<address>" if str(r[4]).startswith("0x") else r[4]
            lines.append("data_op\t%s\t%s:%s\t%s var=%s origin=%s" % (
                r[0], base(r[1]), r[2], r[3], var, r[5]))
        for r in c.execute("SELECT DISTINCT kind, file, line, function, origin FROM target_sources"):
            lines.append("construct\t%s\t%s:%s\t%s origin=%s" % (
                r[0], base(r[1]), r[2], r[3], r[4]))
    except sqlite3.Error as e:
        lines.append("db\tunreadable\t%s\t-" % e)
    for l in sorted(set(lines)):
        print(prog + "\t" + l)

def fromhashes(path):
    c = db(path)
    for r in c.execute("SELECT bytes, hash FROM data_ops WHERE op = 'from_device' ORDER BY seq"):
        print("%d\t%s" % (r[0], r[1] or "null"))

def summary(path, report, prog, attrib_out):
    # One process for what the script needs of a program's database: python
    # starts slowly on a busy machine.
    for f in (runinfo, counts):
        try:
            f(path)
        except sqlite3.Error as e:
            print("n/a")
            sys.stderr.write("gpu-check helper: %s: %s\n" % (f.__name__, e))
    try:
        with open(report) as f:
            devs = json.load(f).get("run", {}).get("devices", [])
        print(" ".join("%s:%s" % (d.get("device"), d.get("type")) for d in devs) or "none")
    except (OSError, ValueError, AttributeError):
        print("n/a")
    sys.stdout.flush()
    with open(attrib_out, "a") as out:
        sys.stdout = out
        attribution(path, report, prog)

cmd = sys.argv[1]
try:
    if cmd == "counts":
        counts(sys.argv[2])
    elif cmd == "runinfo":
        runinfo(sys.argv[2])
    elif cmd == "fromhashes":
        fromhashes(sys.argv[2])
    elif cmd == "attribution":
        attribution(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "summary":
        summary(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
except (sqlite3.Error, OSError, ValueError, IndexError) as e:
    print("n/a")
    sys.stderr.write("gpu-check helper: %s: %s\n" % (cmd, e))
PY

# db_counts DB: "alloc=N to_device=N from_device=N delete=N kernel=N [other=N]".
db_counts() {
	if [ -n "$py" ]; then
		timeout 60 python3 "$helper" counts "$1" 2>>"$log"
	elif command -v sqlite3 >/dev/null 2>&1; then
		timeout 60 sqlite3 -batch -noheader "$1" "SELECT 'alloc=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'alloc')
			|| ' to_device=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'to_device')
			|| ' from_device=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'from_device')
			|| ' delete=' || (SELECT COUNT(*) FROM data_ops WHERE op = 'delete')
			|| ' kernel=' || (SELECT COUNT(*) FROM kernels)
			|| (SELECT CASE WHEN COUNT(*) > 0 THEN ' other=' || COUNT(*) ELSE '' END FROM data_ops
			    WHERE op NOT IN ('alloc', 'to_device', 'from_device', 'delete'))" 2>>"$log"
	else
		echo n/a
	fi
}
# db_runinfo DB: "WALL_NS STATUS EXIT_STATUS EVENTS_LOST".
db_runinfo() {
	if [ -n "$py" ]; then
		timeout 60 python3 "$helper" runinfo "$1" 2>>"$log"
	elif command -v sqlite3 >/dev/null 2>&1; then
		timeout 60 sqlite3 -batch -noheader -separator ' ' -nullvalue n/a "$1" \
			'SELECT wall_ns, status, exit_status, events_lost FROM run' 2>>"$log"
	else
		echo "n/a n/a n/a n/a"
	fi
}
# tracer_counts TRACE: the same line from the tracer's output.
tracer_counts() {
	awk -F'\t' '
		{ n[$1]++ }
		END {
			split("alloc to_device from_device delete kernel", ops, " ")
			line = ""
			for (i = 1; i <= 5; i++) {
				line = line sprintf("%s%s=%d", i > 1 ? " " : "", ops[i], n[ops[i]])
				delete n[ops[i]]
			}
			other = 0
			for (k in n) other += n[k]
			if (other) line = line " other=" other
			print line
		}' "$1"
}
# count_diff A B: the kinds whose counts differ ("from_device=3/2 ..."), empty when equal.
count_diff() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		na = split(a, x, " "); nb = split(b, y, " ")
		for (i = 1; i <= na; i++) { split(x[i], kv, "="); A[kv[1]] = kv[2]; K[kv[1]] = 1 }
		for (i = 1; i <= nb; i++) { split(y[i], kv, "="); B[kv[1]] = kv[2]; K[kv[1]] = 1 }
		s = ""
		for (k in K) if (A[k] + 0 != B[k] + 0) s = s (s ? " " : "") k "=" A[k] + 0 "/" B[k] + 0
		print s
	}'
}
# median_of FILE: the median of its lines; n/a when it has none (or is not there).
median_of() { if [ -s "$1" ]; then median <"$1"; else echo n/a; fi; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "n/a"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "n/a" || b == "n/a" || b + 0 == 0) print "n/a"; else printf "%.3f", a / b }'; }
# pair_stat OP A B FMT: over the rounds in both files of "I NS" lines, the
# per-round A/B (OP ratio) or (A - B) in ms (OP diffms): "MEDIAN MIN MAX N".
pair_stat() {
	{ [ -s "$2" ] && [ -s "$3" ]; } || { echo "n/a n/a n/a 0"; return; }
	awk -v op="$1" 'NR == FNR { a[$1] = $2; next }
		($1 in a) { if (op == "ratio") { if ($2 > 0) print a[$1] / $2 } else print (a[$1] - $2) / 1e6 }' "$2" "$3" |
		sort -g | awk -v f="$4" '{ v[NR] = $1 }
		END {
			if (!NR) { print "n/a n/a n/a 0"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf f " " f " " f " %d\n", m, v[1], v[NR], NR
		}'
}

# --- 2. environment ------------------------------------------------------------
dev=$out/devices.txt
{
	echo "# gpu-check environment ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
	echo "## uname"; uname -a
	echo "## cpus: $(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
	grep -m1 'model name' /proc/cpuinfo 2>/dev/null
	echo "## os"; cat /etc/os-release 2>/dev/null | grep -E '^(PRETTY_NAME|VERSION_ID)='
	echo "## MANIFEST"; cat "$bundle/MANIFEST" 2>/dev/null || echo "(none)"
	echo "## GPU driver (what its development and runtime names return from cuInit / hsa_init)"
	cat "$detail/driver.txt" 2>/dev/null
	echo "## gpu-check options: rounds=$rounds quick=$quick budget=$budget timeout=$run_timeout check_mib=$check_mib"
} >"$dev" 2>&1
if command -v nvidia-smi >/dev/null 2>&1; then
	step nvidia-smi-L 30 "$detail/nvidia-smi-L.txt" nvidia-smi -L
	step nvidia-smi-q 30 "$detail/nvidia-smi-q.txt" nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max --format=csv
	step nvidia-smi 30 "$detail/nvidia-smi.txt" nvidia-smi
	{ echo "## nvidia-smi -L"; cat "$detail/nvidia-smi-L.txt"; echo "## nvidia-smi --query-gpu"; cat "$detail/nvidia-smi-q.txt"; } >>"$dev"
else
	echo "## nvidia-smi: not found" >>"$dev"
fi
if command -v rocm-smi >/dev/null 2>&1; then
	step rocm-smi 30 "$detail/rocm-smi.txt" rocm-smi
	{ echo "## rocm-smi"; cat "$detail/rocm-smi.txt"; } >>"$dev"
fi
{
	echo "## mapprof"
	timeout 10 "$mapprof" --version 2>&1
	echo "## ldd mapprof (libraries not found)"
	timeout 10 ldd "$mapprof" 2>&1 | grep -i 'not found' || echo "(all found)"
	echo "## LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
} >>"$dev" 2>&1
devices_prog=$bundle/programs/check/devices
if [ -x "$devices_prog" ]; then
	timeout 10 ldd "$devices_prog" >"$detail/ldd-devices.txt" 2>&1
	LIBOMPTARGET_INFO=1 step devices 60 "$detail/devices-info.txt" "$devices_prog"
	{
		echo "## OpenMP devices (programs/check/devices, LIBOMPTARGET_INFO=1)"
		grep -E '^DEVICES? ' "$detail/devices-info.txt" || echo "(the program printed no device list: see detail/devices-info.txt)"
		echo "## libomptarget's messages (first 40 lines)"
		grep -v -E '^DEVICES? ' "$detail/devices-info.txt" | head -n 40
		echo "## ldd devices"
		cat "$detail/ldd-devices.txt"
	} >>"$dev" 2>&1
else
	echo "## OpenMP devices: no programs/check/devices in the bundle" >>"$dev"
fi
say "environment written to devices.txt"

# --- 3. programs ---------------------------------------------------------------
# args_for GROUP NAME SMALL: the arguments a program runs with.
args_for() {
	local group=$1 name=$2 small=$3
	case $group/$name in
	check/async_*) echo "$check_mib" ;;
	real/* | host-real/*)
		if [ "$small" = 1 ]; then
			case ${name%.*} in
			lu) echo "512 64" ;;
			stencil) echo "256 40" ;;
			cg) echo "8" ;;
			bfs) echo "1" ;;
			stream) echo "20" ;;
			esac
		fi ;;
	esac
}

# The programs in the order of what matters most on a GPU.
progs=()
for group in check samples real fixed host-samples host-real; do
	d=$bundle/programs/$group
	# host-*: host-offload builds, carried only with GPU_BUNDLE_HOST=1.
	[ -d "$d" ] || { case $group in host-*) ;; *) say "no programs/$group in the bundle" ;; esac; continue; }
	# The async checks first, pinned first: the answers only a GPU gives.
	list=$(cd "$d" && for f in *; do
		[ -f "$f" ] && [ -x "$f" ] && case $f in *.so | *.so.*) ;; *) echo "$f" ;; esac
	done | sort | awk '{ p = ($0 ~ /^async_pinned/) ? 0 : ($0 ~ /^async_/) ? 1 : ($0 == "devices") ? 3 : 2; print p "\t" $0 }' | sort -k1,1n -k2 | cut -f2)
	for f in $list; do
		[ -z "$only" ] || echo "$group/$f" | grep -qE -- "$only" || continue
		progs+=("$group/$f")
	done
done
say "${#progs[@]} programs: ${progs[*]}"

prog_tsv=$detail/programs.tsv
: >"$prog_tsv"
attrib=$out/attribution.tsv
: >"$attrib"
# order_of I: the sides of round I, rows of a Williams design: each side in
# each place, and right after each other side, once every n rounds (n the
# number of sides, even; 2n rounds for an odd n, the rows then reversed), so
# that what a run leaves behind (the page cache, a database being written
# back) falls on every side alike.
order_of() {
	local n=${#sides} r j k base=() out=
	r=$(($1 % (n % 2 ? 2 * n : n)))
	for ((j = 0, k = 0; j < n; j++)); do
		# 0, 1, n-1, 2, n-2, ...
		if ((j == 0)); then base+=(0); elif ((j % 2)); then base+=($(((j + 1) / 2))); else base+=($((n - j / 2))); fi
	done
	for ((j = 0; j < n; j++)); do
		k=$(((base[j] + r % n) % n))
		if ((r >= n)); then out=${sides:k:1}$out; else out=$out${sides:k:1}; fi
	done
	echo "$out"
}

# run_one KIND DIR I PROG ARGS...: one timed run (KIND n: native, f: floor
# under the empty tool, r: 'mapprof record' into DIR/rec-I.db, h: the hash
# floor under 'mapprof record' into DIR/hf-I.db); its wall time in ns
# appended to DIR/KIND.ns and, as "I NS", to DIR/KIND.ins; its status to
# DIR/KIND.rc.
run_one() {
	local kind=$1 dir=$2 i=$3 t0 t1 rc limit
	shift 3
	limit=$(per_run_limit)
	t0=$(now_ns)
	case $kind in
	n) timeout -k 5 "$limit" "$@" >"$dir/n-$i.out" 2>"$dir/n-$i.err" ;;
	f) OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$empty_tool \
		timeout -k 5 "$limit" "$@" >"$dir/f-$i.out" 2>"$dir/f-$i.err" ;;
	r) timeout -k 5 "$limit" "$mapprof" record -f -o "$dir/rec-$i.db" -- "$@" \
		>"$dir/r-$i.out" 2>"$dir/r-$i.err" ;;
	h) MAPPROF_COLLECTOR=$hash_floor timeout -k 5 "$limit" "$mapprof" record -f -o "$dir/hf-$i.db" -- "$@" \
		>"$dir/h-$i.out" 2>"$dir/h-$i.err" ;;
	esac
	rc=$?
	t1=$(now_ns)
	echo "$rc" >>"$dir/$kind.rc"
	[ "$rc" -eq 0 ] && echo $((t1 - t0)) >>"$dir/$kind.ns"
	[ "$rc" -eq 0 ] && echo "$i $((t1 - t0))" >>"$dir/$kind.ins"
	[ "$rc" -eq 0 ] || say "  $kind run $i exited with $rc"
	return "$rc"
}
# The time one run may take: --timeout, less when the budget is nearly spent.
per_run_limit() {
	local left=$((budget - $(elapsed_s) + 30))
	[ "$left" -lt 15 ] && left=15
	[ "$left" -lt "$run_timeout" ] && echo "$left" || echo "$run_timeout"
}

for p in "${progs[@]}"; do
	group=${p%%/*}
	name=${p#*/}
	id=$group-$name
	dir=$detail/programs/$id
	mkdir -p "$dir"
	prog=$bundle/programs/$p
	e=$(elapsed_s)
	if [ "$e" -ge "$budget" ]; then
		say "$p: skipped (time budget of ${budget}s spent)"
		printf '%s\t%s\tskipped\t\t\t\t\t\t\t\t\ttime budget spent\t\t\t\t\t\t\t\t\n' "$id" "$group" >>"$prog_tsv"
		continue
	fi
	small=$quick
	[ "$small_all" = 1 ] && small=1
	case $group in real | host-real) [ $((e * 10)) -ge $((budget * 4)) ] && small=1 ;; esac
	r=$rounds
	[ $((e * 10)) -ge $((budget * 6)) ] && r=1
	read -r -a args <<<"$(args_for "$group" "$name" "$small")"
	notes=
	case $group in real | host-real) [ "$small" = 1 ] && [ ${#args[@]} -gt 0 ] && notes="small input (${args[*]})" ;; esac
	[ "$r" -lt "$rounds" ] && notes="${notes:+$notes; }1 round (budget)"
	say "$p ${args[*]}: $r round(s)"
	echo "$prog ${args[*]}" >"$dir/command.txt"
	(
		cd "$detail/work" || exit 1
		hung=0
		for ((i = 0; i < r && !hung; i++)); do
			# Past 90 % of the budget, the rounds done are all there is.
			if [ "$i" -gt 0 ] && [ $(($(elapsed_s) * 10)) -ge $((budget * 9)) ]; then
				echo "$i" >"$dir/cut"
				break
			fi
			order=$(order_of "$i")
			for ((j = 0; j < ${#order}; j++)); do
				k=${order:j:1}
				[ "$k" = f ] && [ ! -f "$empty_tool" ] && continue
				[ "$k" = r ] && [ ! -x "$mapprof" ] && continue
				[ "$k" = h ] && { [ ! -f "$hash_floor" ] || [ ! -x "$mapprof" ]; } && continue
				run_one "$k" "$dir" "$i" "$prog" "${args[@]}"
				# A run that hung (a GPU that does not answer) would hang
				# again: no more rounds, no tracer.
				case $? in 124 | 137) hung=1; echo "$k" >"$dir/hung"; break ;; esac
			done
			# Every round's program wall times, paired by round (I NS), of
			# the runs that succeeded; later rounds' databases then go.
			if [ -f "$dir/rec-$i.db" ]; then
				read -r w _ <<<"$(db_runinfo "$dir/rec-$i.db")"
				[ -n "$w" ] && [ "$w" != n/a ] && grep -q "^$i " "$dir/r.ins" 2>/dev/null &&
					echo "$i $w" >>"$dir/rwall.ins"
				if [ "$i" -gt 0 ]; then
					[ -n "$w" ] && [ "$w" != n/a ] && echo "$w" >>"$dir/rwall.ns"
					rm -f "$dir/rec-$i.db"
				fi
			fi
			if [ -f "$dir/hf-$i.db" ]; then
				read -r w _ <<<"$(db_runinfo "$dir/hf-$i.db")"
				[ -n "$w" ] && [ "$w" != n/a ] && grep -q "^$i " "$dir/h.ins" 2>/dev/null &&
					echo "$i $w" >>"$dir/hwall.ins"
				rm -f "$dir/hf-$i.db"
			fi
		done
		# The tracer, once.
		if [ -f "$tracer" ] && [ "$hung" = 0 ]; then
			rm -f "$dir/trace.tsv"
			t0=$(now_ns)
			OMP_TOOL=enabled OMP_TOOL_LIBRARIES=$tracer MAPPROF_TRACER_OUT=$dir/trace.tsv \
				timeout -k 5 "$(per_run_limit)" "$prog" "${args[@]}" >"$dir/t.out" 2>"$dir/t.err"
			rc=$?
			echo "$rc $(secs $(($(now_ns) - t0)))" >"$dir/t.rc"
			[ "$rc" -eq 0 ] || say "  tracer run exited with $rc"
		fi
	)
	db=$dir/rec-0.db
	rstatus=n/a
	dc=n/a devtypes=n/a
	if [ -f "$db" ]; then
		step "report $id" 120 "$dir/report.txt" "$mapprof" report --json "$dir/report.json" --no-html "$db"
		if [ -n "$py" ]; then
			{ read -r w rstatus _ lost; read -r dc; read -r devtypes; } < <(timeout 120 python3 "$helper" \
				summary "$db" "$dir/report.json" "$id" "$attrib" 2>>"$log")
		else
			read -r w rstatus _ lost <<<"$(db_runinfo "$db")"
			dc=$(db_counts "$db")
		fi
		[ -n "$w" ] && [ "$w" != n/a ] && echo "$w" >>"$dir/rwall.ns"
		[ "${lost:-0}" != 0 ] && [ "${lost:-0}" != n/a ] && notes="${notes:+$notes; }$lost events lost"
		case ${rstatus:-n/a} in complete | n/a) ;; *) notes="${notes:+$notes; }recording $rstatus" ;; esac
	fi
	nat=$(median_of "$dir/n.ns")
	flo=$(median_of "$dir/f.ns")
	rec=$(median_of "$dir/rwall.ns")
	recc=$(median_of "$dir/r.ns")
	[ -f "$dir/rwall.ns" ] || rec=$recc
	[ -f "$dir/r.ns" ] || rec=n/a
	# Against the hash floor, round by round: the program's wall times as
	# 'mapprof record' measured them on both sides, and each command's time
	# outside the program (creating the database, the expansion after it).
	hflo=$(awk '{ print $2 }' "$dir/hwall.ins" 2>/dev/null | median)
	read -r xh xhmin xhmax npairs < <(pair_stat ratio "$dir/rwall.ins" "$dir/hwall.ins" %.3f)
	read -r rout _ < <(pair_stat diffms "$dir/r.ins" "$dir/rwall.ins" %.1f)
	read -r hout _ < <(pair_stat diffms "$dir/h.ins" "$dir/hwall.ins" %.1f)
	[ -f "$dir/cut" ] && notes="${notes:+$notes; }$(cat "$dir/cut") round(s) (budget)"
	[ -f "$dir/hung" ] && notes="${notes:+$notes; }a run timed out ($(cat "$dir/hung")): rounds stopped, no tracer"
	grep -qv '^0$' "$dir/n.rc" 2>/dev/null && notes="${notes:+$notes; }native failed (exit $(sort -u "$dir/n.rc" | paste -sd, -))"
	grep -qv '^0$' "$dir/f.rc" 2>/dev/null && notes="${notes:+$notes; }floor failed (exit $(sort -u "$dir/f.rc" | paste -sd, -))"
	grep -qv '^0$' "$dir/r.rc" 2>/dev/null && notes="${notes:+$notes; }record failed (exit $(sort -u "$dir/r.rc" | paste -sd, -))"
	grep -qv '^0$' "$dir/h.rc" 2>/dev/null && notes="${notes:+$notes; }hash floor failed (exit $(sort -u "$dir/h.rc" | paste -sd, -))"
	# The first line a failed run wrote to stderr: the table says why.
	for k in n r f h; do
		grep -qv '^0$' "$dir/$k.rc" 2>/dev/null || continue
		why=$(cat "$dir/$k"-*.err 2>/dev/null | grep -m1 -v '^[[:space:]]*$' | cut -c1-160 | tr '|\t' '/ ')
		[ -n "$why" ] && notes="${notes:+$notes; }$k stderr: $why"
		break
	done
	tc=n/a match=n/a differ=
	if [ -f "$dir/trace.tsv" ]; then tc=$(tracer_counts "$dir/trace.tsv"); fi
	[ -n "$dc" ] || dc=n/a
	if [ "$tc" != n/a ] && [ "$dc" != n/a ]; then
		differ=$(count_diff "$dc" "$tc")
		if [ -z "$differ" ]; then match=yes; else match=no; fi
	else
		notes="${notes:+$notes; }no counts (trace: $tc, db: $dc)"
	fi
	echo "mapprof: $dc" >"$dir/counts.txt"
	echo "tracer:  $tc" >>"$dir/counts.txt"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$group" "$(secs "$nat")" \
		"$(secs "$flo")" "$(secs "$rec")" "$(ratio "$rec" "$nat")" "$(ratio "$rec" "$flo")" \
		"$(secs "$recc")" "$match" "$differ" "$dc" "$notes" "${devtypes:-n/a}" \
		"$(secs "$hflo")" "$xh" "$xhmin" "$xhmax" "$npairs" "$rout" "$hout" >>"$prog_tsv"
	say "$p: native $(secs "$nat") s, floor $(secs "$flo") s, recorded $(secs "$rec") s; counts match: $match $differ"
done

# --- 4. the async-hash answers ----------------------------------------------------
async=$out/async.tsv
printf 'program\tcase\top\tmemory\tnowait\tbytes\tmapprof\ttracer_op_end\tcontent_ok\tmapprof_hash\ttracer_hash\tfresh\tstale\n' >"$async"
verdict() {  # verdict HASHES FRESH STALE
	case $1 in
	'' | n/a) echo missing ;;
	null) echo "no hash" ;;
	*,*) echo "several($1)" ;;
	"$2") echo fresh ;;
	"$3") echo STALE ;;
	*) echo other ;;
	esac
}
for p in "${progs[@]}"; do
	case $p in check/async_*) ;; *) continue ;; esac
	id=${p/\//-}
	dir=$detail/programs/$id
	# The CHECK lines of the recorded run (its database's transfers), else the native run's.
	src=$dir/r-0.out
	grep -q '^CHECK ' "$src" 2>/dev/null || src=$dir/n-0.out
	grep -h '^CHECK-SKIP ' "$src" 2>/dev/null | while read -r _ rest; do
		printf '%s\t%s\t\t\t\t\tskipped\tskipped\t\t\t\t\t\n' "$id" "$rest" >>"$async"
	done
	# Every from_device transfer of the database: "BYTES<TAB>HASH".
	: >"$dir/from.tsv"
	if [ -f "$dir/rec-0.db" ]; then
		if [ -n "$py" ]; then
			timeout 60 python3 "$helper" fromhashes "$dir/rec-0.db" >"$dir/from.tsv" 2>>"$log"
		elif command -v sqlite3 >/dev/null 2>&1; then
			timeout 60 sqlite3 -batch -noheader -separator "$(printf '\t')" -nullvalue null "$dir/rec-0.db" \
				"SELECT bytes, hash FROM data_ops WHERE op = 'from_device' ORDER BY seq" >"$dir/from.tsv" 2>>"$log"
		fi
	fi
	grep -h '^CHECK ' "$src" 2>/dev/null | while read -r _ rest; do
		label='' op='' mem='' nowait='' bytes='' fresh='' stale='' ok=
		for kv in $rest; do
			case $kv in
			label=* | op=* | mem=* | nowait=* | bytes=* | fresh=* | stale=* | ok=*) eval "${kv%%=*}=\${kv#*=}" ;;
			esac
		done
		mh=n/a th=n/a
		[ -f "$dir/rec-0.db" ] && mh=$(awk -F'\t' -v b="$bytes" '$1 == b { s = s (s ? "," : "") $2 } END { print s }' "$dir/from.tsv")
		[ -f "$dir/trace.tsv" ] && th=$(awk -F'\t' -v b="$bytes" '$1 == "from_device" && $4 == b { s = s (s ? "," : "") $5 } END { print s }' "$dir/trace.tsv")
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$label" "$op" "$mem" \
			"$nowait" "$bytes" "$(verdict "$mh" "$fresh" "$stale")" "$(verdict "$th" "$fresh" "$stale")" \
			"$ok" "$mh" "$th" "$fresh" "$stale" >>"$async"
	done
done
say "async-hash answers: $(awk -F'\t' 'NR > 1 { n[$7]++ } END { for (k in n) printf "%s mapprof=%s ", n[k], k }' "$async")"

# --- the attribution against host offload -------------------------------------------
attrib_cmp=$detail/attribution-vs-host.txt
: >"$attrib_cmp"
if [ -n "$host_attrib" ] && [ -f "$host_attrib" ]; then
	for id in $(cut -f1 "$attrib" | sort -u); do
		if ! cut -f1 "$host_attrib" | grep -qxF -- "$id"; then
			echo "$id not in the host-offload file" >>"$attrib_cmp"
		elif diff <(awk -F'\t' -v p="$id" '$1 == p' "$host_attrib") <(awk -F'\t' -v p="$id" '$1 == p' "$attrib") \
			>"$detail/programs/$id/attribution.diff" 2>&1; then
			echo "$id same" >>"$attrib_cmp"
		else
			echo "$id differs ($(grep -c '^[<>]' "$detail/programs/$id/attribution.diff") lines)" >>"$attrib_cmp"
		fi
	done
fi

# --- 5. results.md, results.tsv, results.tar.gz ---------------------------------------
md=$out/results.md
tsv=$out/results.tsv
{
	echo "# gpu-check results"
	echo
	echo "Bundle: \`$(tr '\n' ' ' <"$bundle/MANIFEST" 2>/dev/null)\`; rounds $rounds; quick $quick;" \
		"budget ${budget}s; ran $(elapsed_s)s; $(date -u +%Y-%m-%dT%H:%M:%SZ)."
	echo
	if ! grep -q '^DEVICE [0-9]* offloaded=yes' "$detail/devices-info.txt" 2>/dev/null; then
		echo "**WARNING: programs/check/devices found no OpenMP device that runs off the host:" \
			"the runs below may have fallen back to the host (see devices.txt, and each program's" \
			"devices column).**"
		echo
	fi
	echo "## Devices"
	echo
	echo "| source | line |"
	echo "|---|---|"
	{ cat "$detail/nvidia-smi-L.txt" 2>/dev/null | sed 's/^/nvidia-smi|/'
	  grep -E '^DEVICES? ' "$detail/devices-info.txt" 2>/dev/null | sed 's/^/openmp|/'
	  grep -E '^(target|arch|llvm|commit)=' "$bundle/MANIFEST" 2>/dev/null | sed 's/^/manifest|/'
	  echo "host|$(uname -srm), $(nproc 2>/dev/null) CPUs"
	} | awk -F'|' '{ l = $0; sub(/^[^|]*\|/, "", l); gsub(/\|/, "/", l); print "| " $1 " | " l " |" }'
	echo
	echo "## Programs"
	echo
	echo "Median wall times over the rounds (native and floor: the command; recorded: the program's" \
		"time as 'mapprof record' measured it; record cmd: the whole 'mapprof record' command)." \
		"Counts: every data op kind and kernels, mapprof's database against the tracer (differing: mapprof/tracer)."
	echo
	echo "| program | native s | floor s | recorded s | ×native | ×floor | record cmd s | counts match | differing | devices (report.json) | notes |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $13, $12 }' "$prog_tsv"
	echo
	if awk -F'\t' '$18 > 0 { f = 1 } END { exit !f }' "$prog_tsv"; then
		echo "## Against the hash-everything floor (issue #29)"
		echo
		echo "The hash floor is lib/libhash-floor.so (bench/hash_floor.c) under 'mapprof record': the same" \
			"callbacks, an XXH3 hash of every transferred byte on the program's thread, events in memory." \
			"Per round, mapprof's program wall time over the floor's (both as 'mapprof record' measured" \
			"them): the median and range of those paired ratios.  Outside: the 'mapprof record' command's" \
			"time beyond the program (the database's creation, and after the program what is left of the" \
			"expansion), median over the rounds."
		echo
		echo "| program | hash floor s | recorded s | recorded / hash floor | min–max | pairs | outside ms, mapprof | outside ms, hash floor |"
		echo "|---|---|---|---|---|---|---|---|"
		awk -F'\t' '$18 > 0 { printf "| %s | %s | %s | %s | %s–%s | %s | %s | %s |\n", $1, $14, $5, $15, $16, $17, $18, $19, $20 }' "$prog_tsv"
		awk -F'\t' '$18 > 0 && $15 > 0 { s += log($15); n++; if ($15 <= 1) le++ }
			END { if (n) printf "\nGeometric mean of the medians: %.3f over %d programs; %d at or under 1.00.\n", exp(s / n), n, le }' "$prog_tsv"
		echo
	fi
	echo "## Async hashing"
	echo
	echo "Per from-device transfer of programs/check/async_*: mapprof's hash and the tracer's (taken at" \
		"the data op's end, the published tool's way) against the content after full synchronisation" \
		"(fresh) and before the kernel (STALE); other: neither (a copy caught half done)."
	echo
	echo "| program | case | bytes | memory | nowait | op | mapprof | tracer (op end) | content ok |"
	echo "|---|---|---|---|---|---|---|---|---|"
	awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $6, $4, $5, $3, $7, $8, $9 }' "$async"
	echo
	echo "## Source attribution"
	echo
	if [ -s "$attrib_cmp" ]; then
		echo "Against the host-offload run ($host_attrib):"
		echo
		echo "| program | attribution |"
		echo "|---|---|"
		awk '{ id = $1; $1 = ""; sub(/^ /, ""); print "| " id " | " $0 " |" }' "$attrib_cmp"
	else
		echo "attribution.tsv lists, per program, the findings, plans, data ops and constructs with their" \
			"file:line, variable and origin ($(wc -l <"$attrib") lines); no host-offload file to compare" \
			"against was given (--host-attribution): diff it with the host-offload run's attribution.tsv."
	fi
	echo
	echo "## Steps that failed"
	echo
	awk -F'\t' '$2 != 0 { printf "- %s: exit %s after %s s\n", $1, $2, $3; n++ } END { if (!n) print "none" }' "$steps"
} >"$md"
{
	printf 'section\tname\tgroup\tnative_s\tfloor_s\trecorded_s\tx_native\tx_floor\trecord_cmd_s\tcounts_match\tdiffering\tmapprof_counts\tnotes\tdevices\thfloor_s\tx_hfloor\tx_hfloor_min\tx_hfloor_max\thfloor_pairs\trec_outside_ms\thfloor_outside_ms\n'
	sed 's/^/program\t/' "$prog_tsv"
	printf 'section\tcase\tprogram\top\tmemory\tnowait\tbytes\tmapprof\ttracer_op_end\tcontent_ok\tmapprof_hash\ttracer_hash\tfresh\tstale\n'
	awk -F'\t' 'NR > 1 { printf "async\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $2, $1, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }' "$async"
} >"$tsv"

# The rest in one archive: databases only when small (the transfer-heavy
# ones are large), none when the archive would pass 24 MiB.  Then detail/
# goes (unless --keep-detail): the folder's top holds the files to copy out.
find "$detail" -name '*.db' -size +8M -delete 2>/dev/null
say "done in $(elapsed_s)s: $md"
cp "$log" "$detail/log.txt" 2>/dev/null
if timeout 120 tar -C "$out" -czf "$out/results.tar.gz" detail 2>>"$log"; then
	if [ "$(du -k "$out/results.tar.gz" | cut -f1)" -gt 24576 ]; then
		say "results.tar.gz over 24 MiB: again without the databases"
		timeout 120 tar -C "$out" --exclude='*.db' -czf "$out/results.tar.gz" detail 2>>"$log"
	fi
	[ "$keep_detail" = 1 ] || rm -rf "$detail"
else
	say "warning: could not write results.tar.gz: detail/ stays"
fi
exit 0
