#!/usr/bin/env bash
# gpu_bundle.sh - 'make gpu-bundle' (issue 28) for host offload
# (GPU_TARGET=x86_64-pc-linux-gnu), the way it goes to a GPU machine: written
# to a fresh folder, set up into a fresh prefix, then used in an
# empty environment (env -i) with only env.sh's variables.  mapprof records
# a sample there and finds what it finds here, and every library the
# recorded program loaded (the database's modules) comes from the bundle,
# except the C and C++ runtimes.  The bundle stays <= 64 MiB.
#
# The programs are built in $MAPPROF_BUILD/gpu/ (make rebuilds what changed)
# and the Debian packages downloaded into $MAPPROF_BUILD/debcache (once);
# without the network (or apt's lists) the test skips.
. "$(dirname "$0")/lib.sh"
command -v apt-get >/dev/null && command -v dpkg-query >/dev/null || skip "not a Debian system: no apt-get or dpkg-query"
bundle=$(tmpdir)/gpu-bundle
log=$(make --no-print-directory -C "$MAPPROF_SRC" -j"$(nproc)" B="$MAPPROF_BUILD" GPU_BUNDLE="$bundle" OMPCC="$OMPCC" LLVM_DIR="$LLVM_DIR" \
	GPU_TARGET=x86_64-pc-linux-gnu DEBCACHE="$MAPPROF_BUILD/debcache" gpu-bundle 2>&1) || {
	reason=$(grep -m1 'cannot download the Debian package' <<<"$log")
	[ -z "$reason" ] || skip "${reason#gpu-bundle: error: }"
	printf '%s\n' "$log"
	fail "make gpu-bundle GPU_TARGET=x86_64-pc-linux-gnu failed"
}
grep -q "^gpu-bundle: $bundle: [0-9]* MiB" <<<"$log" || fail "make gpu-bundle did not print the bundle's size: $log"
kib=$(du -sk "$bundle" | cut -f1)
[ "$kib" -le $((64 * 1024)) ] || fail "the bundle is $kib KiB, over 64 MiB"
for f in MANIFEST README setup.sh bin/mapprof bin/libmapprof-collector.so bin/libmapprof-ingest.so \
	lib/libtracer.so lib/libempty-tool.so programs/samples/round_trip programs/samples/liboffload_kernels.so \
	programs/fixed/round_trip programs/real/stream.naive programs/real/stream.fixed; do
	[ -f "$bundle/$f" ] || fail "the bundle has no $f"
done
grep -qx 'target=x86_64-pc-linux-gnu' "$bundle/MANIFEST" || fail "MANIFEST: $(cat "$bundle/MANIFEST")"
grep -qx 'arch=none' "$bundle/MANIFEST" || fail "MANIFEST has no arch=none"
grep -q '^commit=[0-9a-f]\{40\}' "$bundle/MANIFEST" || fail "MANIFEST has no commit"
for p in libomp5-19 libllvm19 libsqlite3-0 libxxhash0; do
	ls "$bundle/debs/${p}_"*.deb >/dev/null 2>&1 || fail "the bundle carries no $p package: $(ls "$bundle/debs")"
done
# These only where the binaries load them (mapprof links their archives when they are there).
needs=$(ldd "$bundle"/bin/* 2>/dev/null)
for p in libjansson4:libjansson.so libdw1:libdw.so libelf1:libelf.so; do
	grep -q "${p#*:}" <<<"$needs" || continue
	ls "$bundle/debs/${p%%:*}_"*.deb >/dev/null 2>&1 || fail "the bundle carries no ${p%%:*} package: $(ls "$bundle/debs")"
done
ls "$bundle"/debs/libc6_* "$bundle"/debs/libstdc++6_* >/dev/null 2>&1 && fail "the bundle carries glibc or libstdc++"

prefix=$(tmpdir)/p
run_clean() {
	env -i PATH=/usr/bin:/bin HOME="$HOME" bash -c "$1"
}
out=$(run_clean "'$bundle/setup.sh' '$prefix'" 2>&1) || fail "setup.sh failed: $out"
grep -q 'unpacked libomp5-19_' <<<"$out" || fail "setup.sh did not say what it unpacked: $out"
# Again: the same result (it is run again on a machine where it ran before).
out=$(run_clean "'$bundle/setup.sh' '$prefix'" 2>&1) || fail "setup.sh failed the second time: $out"
[ -f "$bundle/env.sh" ] || fail "setup.sh wrote no env.sh"

rec=$(tmpdir)
# mapprof itself may be linked statically (the Makefile's STATIC_EXE): ldd then says so and fails.
out=$(run_clean ". '$bundle/env.sh' && cd '$rec' && ldd '$bundle/programs/samples/round_trip' \
	'$prefix/usr/lib/llvm-19/lib/libomptarget.so.19.1' && { ldd '$bundle/bin/mapprof' || true; }" 2>&1) ||
	fail "ldd failed: $out"
! grep -q 'not found' <<<"$out" || fail "libraries not found with env.sh: $(grep 'not found' <<<"$out")"
out=$(run_clean ". '$bundle/env.sh' && cd '$rec' && mapprof record -- '$bundle/programs/samples/round_trip' &&
	mapprof report -q --no-html --json report.json round_trip.mapprof.db" 2>&1) ||
	fail "recording with the bundle failed: $out"
grep -q '^round_trip: checksum=' <<<"$out" || fail "the sample did not run: $out"
db=$rec/round_trip.mapprof.db
# The same events as the bundle's tracer sees, in the same environment.
out=$(run_clean ". '$bundle/env.sh' && cd '$rec' && OMP_TOOL_LIBRARIES='$bundle/lib/libtracer.so' \
	MAPPROF_TRACER_OUT='$rec/trace.tsv' '$bundle/programs/samples/round_trip'" 2>&1) || fail "the tracer's run failed: $out"
assert_eq "$(db_counts "$db")" "$(tracer_counts "$rec/trace.tsv")" "events recorded with the bundle (against the tracer)"
assert_eq "$(db_contents "$db")" "$(tracer_contents "$rec/trace.tsv")" "transfers' hashes (against the tracer)"
kinds=$(jq -r '[.findings[] | .kind + "/" + (.flavour // "-")] | sort | join(" ")' "$rec/report.json") ||
	fail "report.json is not JSON"
want=$(jq -r '[.findings[] | .kind + "/" + (.flavour // "-")] | sort | join(" ")' "$MAPPROF_SRC/tests/golden/round_trip.json")
assert_eq "$kinds" "$want" "findings with the bundle"
# Every library the program loaded: the bundle's, or the C/C++ runtime (or
# the device image that the host-offload plugin writes to a temporary file).
foreign=$(q "$db" "SELECT path FROM modules" | grep -v "^$bundle/\|^$prefix/\|/tmpfile_[A-Za-z0-9]*\$" |
	grep -Ev '/(libc\.so\.6|libm\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2)$|^\[|linux-vdso' || true)
[ -z "$foreign" ] || fail "the recorded program loaded libraries from outside the bundle: $foreign"
q "$db" "SELECT path FROM modules" | grep -qx "$prefix/usr/lib/llvm-19/lib/libomptarget.so.19.1" ||
	fail "libomptarget was not loaded from the prefix: $(q "$db" "SELECT path FROM modules")"
echo "bundle: $((kib / 1024)) MiB; recorded round_trip with its libraries from the bundle alone"
