#!/usr/bin/env bash
# gpu_check.sh - scripts/gpu-check.sh end to end on host offload (issue #28):
# 'make gpu-bundle GPU_TARGET=x86_64-pc-linux-gnu' builds the bundle, its
# gpu-check.sh runs inside it (setup.sh, env.sh, every step) as it will on
# a GPU machine, and the results folder must hold every section, every
# program's data op and kernel counts must match the tracer's, and every
# async-hash case must say mapprof=fresh (host offload copies synchronously,
# so the tracer's hash at the data op's end is fresh too).  A second run
# compares its source attribution with the first one's (--host-attribution):
# the same programs on the same machine must be "same".
#
# The bundle is built in $MAPPROF_BUILD/gpu-check-host (seeded with the
# build's objects, so make only links what is missing; its Debian packages
# are downloaded once into $MAPPROF_BUILD/debcache).  The first run's
# attribution.tsv stays there: the host-offload file a GPU run's
# attribution is compared with (docs/gpu.md, "Running the check").
#
# GPU_CHECK_ONLY (a grep -E on GROUP/NAME) picks the programs; by default
# the check programs and a few of each group, to stay fast: '.' runs all.
# SKIP when the bundle's packages cannot be downloaded (no network).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

only=${GPU_CHECK_ONLY:-'^check/|^samples/(round_trip|nowait_threads|offload_in_library)$|^fixed/round_trip$|^real/stream\.'}
command -v make >/dev/null || skip "no make"

hb=$MAPPROF_BUILD/gpu-check-host
if [ ! -d "$hb" ]; then
	# Seed with the build's outputs (mtimes kept): make then builds only the
	# bundle's own parts.  Never the GPU bundles or caches of the build.
	mkdir -p "$hb"
	for f in "$MAPPROF_BUILD"/*; do
		case ${f##*/} in gpu | gpu-bundle | gpu-check-host | debcache) continue ;; esac
		cp -a "$f" "$hb/"
	done
	# The dependency files name their objects by the build's path: renamed,
	# or an object whose header changed (and not its .c) is never rebuilt
	# here, and the bundle's mapprof mixes two layouts of a struct.
	# (By its absolute path, or relative to the source tree: make's B=build.)
	rel=${MAPPROF_BUILD#"$MAPPROF_SRC"/}
	find "$hb" -name '*.d' -exec sed -i -E "s#^($MAPPROF_BUILD|$rel)/(gpu-check-host/)?#$hb/#" {} +
fi
dir=$(tmpdir)
rc=0
# Not the flags or variables of a 'make test' around this test (MAKEFLAGS).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$MAPPROF_SRC" --no-print-directory gpu-bundle GPU_TARGET=x86_64-pc-linux-gnu \
	B="$hb" DEBCACHE="$MAPPROF_BUILD/debcache" SANITIZE="${SANITIZE:-}" \
	>"$dir/make.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
	if grep -q 'cannot download the Debian package' "$dir/make.log"; then
		skip "make gpu-bundle cannot download the bundle's packages: $(grep -m1 'cannot download' "$dir/make.log")"
	fi
	fail "make gpu-bundle GPU_TARGET=x86_64-pc-linux-gnu failed: $(tail -n 5 "$dir/make.log")"
fi
bundle=$hb/gpu-bundle
[ -x "$bundle/gpu-check.sh" ] || fail "no gpu-check.sh in '$bundle'"
grep -qx 'target=x86_64-pc-linux-gnu' "$bundle/MANIFEST" || fail "the bundle is not host offload: $(cat "$bundle/MANIFEST")"

# The first run, from another directory, as a user runs it.
res=$dir/results
rc=0
(cd "$dir" && "$bundle/gpu-check.sh" --quick --rounds 1 --check-mib 4 \
	--only "$only" --out "$res" >"$dir/run1.log" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || fail "gpu-check.sh exited with $rc: $(tail -n 5 "$dir/run1.log")"

for f in results.md results.tsv devices.txt async.tsv attribution.tsv log.txt results.tar.gz; do
	[ -s "$res/$f" ] || fail "no (or an empty) '$f' in the results folder"
done
[ "$(ls "$res" | wc -l)" -le 8 ] || fail "more than 8 entries in the results folder: $(ls "$res")"
for s in '## Devices' '## Programs' '## Async hashing' '## Source attribution' '## Steps that failed'; do
	grep -qx -- "$s" "$res/results.md" || fail "results.md has no section '$s'"
done
grep -q '^## OpenMP devices' "$res/devices.txt" || fail "devices.txt has no OpenMP device list"
grep -q '^DEVICE 0 offloaded=yes' "$res/devices.txt" || fail "devices.txt: device 0 does not offload"
! grep -q 'WARNING' "$res/results.md" || fail "results.md warns on host offload: $(grep WARNING "$res/results.md")"
tar -tzf "$res/results.tar.gz" >"$dir/archived" || fail "results.tar.gz is not a gzip'ed tar"
grep -qx 'detail/programs/check-async_pinned/report.json' "$dir/archived" ||
	fail "results.tar.gz has no report.json of check/async_pinned"
[ ! -e "$res/detail" ] || fail "detail/ is still in the results folder after the archive"

# Every program selected ran, recorded, and counted what the tracer counted.
want=$(cd "$bundle/programs" && for f in */*; do
	[ -x "$f" ] && case $f in *.so) ;; *) echo "$f" ;; esac
done | grep -E -- "$only" | sed 's|/|-|' | sort)
got=$(awk -F'\t' '$1 == "program" { print $2 }' "$res/results.tsv" | sort)
assert_eq "$got" "$want" "programs in results.tsv"
awk -F'\t' '$1 == "program" && $10 != "yes" { print $2 ": counts_match=" $10 " differing=" $11 " notes=" $13 }' \
	"$res/results.tsv" >"$dir/nomatch"
[ ! -s "$dir/nomatch" ] || fail "counts differ from the tracer's: $(cat "$dir/nomatch")"
# Under ASan the empty tool is an ASan library that an unsanitized program
# cannot load (ASan must come first): no floor there, said in the notes.
floor=1
case ${SANITIZE:-} in *address*) floor=0; echo "note: no floor times under SANITIZE=$SANITIZE (the empty tool is built with ASan)" ;; esac
awk -F'\t' -v floor="$floor" '$1 == "program" && ($4 == "n/a" || (floor && $5 == "n/a") || $6 == "n/a") { print $2 }' \
	"$res/results.tsv" >"$dir/notimes"
[ ! -s "$dir/notimes" ] || fail "programs without native, floor or recorded times: $(cat "$dir/notimes")"

# The hash-everything floor (lib/libhash-floor.so under 'mapprof record',
# issue #29): a paired round for every program, and its section.
if [ "$floor" = 1 ]; then
	awk -F'\t' '$1 == "program" && ($19 != 1 || $15 == "n/a" || $16 !~ /^[0-9.]+$/) { print $2 ": hfloor_s=" $15 " x_hfloor=" $16 " pairs=" $19 " notes=" $13 }' \
		"$res/results.tsv" >"$dir/nohfloor"
	[ ! -s "$dir/nohfloor" ] || fail "programs without a hash-floor pair: $(cat "$dir/nohfloor")"
	grep -qx -- '## Against the hash-everything floor (issue #29)' "$res/results.md" ||
		fail "results.md has no hash-floor section"
fi

# The async-hash answers: 12 cases per memory kind, each fresh for both.
for m in pageable pinned; do
	n=$(awk -F'\t' -v m="$m" '$1 == "async" && $5 == m' "$res/results.tsv" | wc -l)
	assert_eq "$n" 12 "async cases on $m memory"
done
awk -F'\t' '$1 == "async" && ($8 != "fresh" || $9 != "fresh" || $10 != 1) { print $2 ": mapprof=" $8 " tracer=" $9 " ok=" $10 }' \
	"$res/results.tsv" >"$dir/notfresh"
[ ! -s "$dir/notfresh" ] || fail "async cases not fresh on host offload: $(cat "$dir/notfresh")"
grep -q '^| check-async_pinned | update-pinned-nowait-large | ' "$res/results.md" ||
	fail "results.md has no async row for update-pinned-nowait-large"

# The attribution names the check programs' map clauses exactly.
grep -q $'^check-async_pageable\tdata_op\tfrom_device\tasync_common.h:[0-9]*\trun_case var=buf\\[0:n\\] origin=ompt-ident$' \
	"$res/attribution.tsv" || fail "attribution.tsv has no from_device of buf[0:n] by ompt-ident"

# The host-offload file, kept for GPU runs to compare with.
cp "$res/attribution.tsv" "$hb/attribution.tsv"

# A second run compared with the first: the same attribution.
res2=$dir/results2
rc=0
# Only mapprof and the hash floor, two rounds: two pairs, no native or floor times.
"$bundle/gpu-check.sh" --small --rounds 2 --sides hr --check-mib 1 --only '^samples/round_trip$|^check/devices$' \
	--host-attribution "$res/attribution.tsv" --out "$res2" >"$dir/run2.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "gpu-check.sh (second run) exited with $rc: $(tail -n 5 "$dir/run2.log")"
awk -F'\t' -v floor="$floor" '$1 == "program" && ($4 != "n/a" || $5 != "n/a" || $6 == "n/a" || (floor && $19 != 2)) { print $2 ": native=" $4 " floor=" $5 " recorded=" $6 " pairs=" $19 }' \
	"$res2/results.tsv" >"$dir/sides"
[ ! -s "$dir/sides" ] || fail "--sides hr --rounds 2: $(cat "$dir/sides")"
rc=0
"$bundle/gpu-check.sh" --sides nrx --out "$dir/results3" >"$dir/run3.log" 2>&1 || rc=$?
assert_eq "$rc" 2 "gpu-check.sh --sides nrx (a usage error)"
grep -q '^| samples-round_trip | same |$' "$res2/results.md" ||
	fail "attribution of samples/round_trip not 'same' as in the first run: $(sed -n '/## Source attribution/,/## Steps/p' "$res2/results.md")"
grep -q '^| check-devices | same |$' "$res2/results.md" ||
	fail "attribution of check/devices not 'same' as in the first run"
echo "ok gpu-check.sh on host offload: $(echo "$want" | wc -w) programs, 24 async cases fresh, attribution same"
