#!/usr/bin/env bash
# make-gpu-bundle.sh - writes the folder GPU_BUNDLE (docs/gpu.md): mapprof, the
# tracer, the programs built for GPU_TARGET and the Debian packages of every
# shared library they load, to carry to a GPU machine that has no LLVM and
# no network.  Run by 'make gpu-bundle', which builds what it copies and
# passes B, GB (the GPU builds), GPU_BUNDLE, GPU_TARGET, GPU_ARCH, LLVM_DIR, DEBCACHE and
# GPU_BUNDLE_MAX_MIB in the environment.
#
# The packages are found, not listed: ldd of every binary and library of the
# bundle, and of libomptarget (which the programs load), gives the libraries;
# dpkg -S gives their packages; apt-get download fetches the installed
# version of each into DEBCACHE once.  glibc, libstdc++ and libgcc are left
# out: every x86-64 Linux has them, newer than Debian 12's.
set -euo pipefail
: "${B:?}" "${GB:?}" "${GPU_BUNDLE:?}" "${GPU_TARGET:?}" "${GPU_ARCH:?}" "${LLVM_DIR:?}" "${DEBCACHE:?}"
max_mib=${GPU_BUNDLE_MAX_MIB:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
out=$GPU_BUNDLE

die() {
	echo "gpu-bundle: error: $*" >&2
	exit 1
}

# Packages every target system has (the C and C++ runtimes): never carried.
skip_pkgs=" libc6 libstdc++6 libgcc-s1 "

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/debs" "$out/programs"

# mapprof finds its collector and ingest library beside itself.
cp "$B/mapprof" "$B/libmapprof-collector.so" "$B/libmapprof-ingest.so" "$out/bin/"
cp "$B/tests/libtracer.so" "$B/bench/libempty-tool.so" "$B/bench/libhash-floor.so" "$out/lib/"
# GPU_JIT=1: the device code is LLVM IR that libomptarget's JIT compiles;
# setup.sh preloads this to register the JIT's NVPTX target (Makefile, docs/gpu.md).
if [ "${GPU_JIT:-}" = 1 ]; then
	cp "$B/gpu/libjit-targets.so" "$out/lib/" || die "no '$B/gpu/libjit-targets.so'"
fi
for d in samples fixed real check; do
	[ -d "$GB/$d" ] || continue
	mkdir -p "$out/programs/$d"
	# Only the programs and their libraries (no .d files or the like).
	find "$GB/$d" -maxdepth 1 -type f \( -perm -u+x -o -name '*.so' \) -exec cp {} "$out/programs/$d/" \;
done
[ -n "$(ls "$out/programs/samples" 2>/dev/null)" ] || die "no programs in '$GB/samples' (run 'make gpu-builds')"
# GPU_BUNDLE_HOST=1: the samples and the realistic suite built for host
# offload too (HB, the Makefile's host-offload gpu-builds), as programs/host-*:
# the same runtime runs them on the GPU machine's own cores.
if [ "${GPU_BUNDLE_HOST:-}" = 1 ] && [ "$HB" = "$GB" ]; then
	echo "gpu-bundle: note: GPU_BUNDLE_HOST=1 adds nothing to a host-offload bundle (its programs are host offload already)"
elif [ "${GPU_BUNDLE_HOST:-}" = 1 ]; then
	for d in samples real; do
		[ -d "$HB/$d" ] || die "no '$HB/$d' (GPU_BUNDLE_HOST=1 needs the host-offload gpu-builds)"
		mkdir -p "$out/programs/host-$d"
		find "$HB/$d" -maxdepth 1 -type f \( -perm -u+x -o -name '*.so' \) -exec cp {} "$out/programs/host-$d/" \;
	done
fi

if [ -f "$src/scripts/gpu-check.sh" ]; then
	cp "$src/scripts/gpu-check.sh" "$out/gpu-check.sh"
	chmod +x "$out/gpu-check.sh"
else
	echo "gpu-bundle: note: no scripts/gpu-check.sh yet: the bundle has no gpu-check.sh"
fi
cp "$src/scripts/gpu-bundle-setup.sh" "$out/setup.sh"
chmod +x "$out/setup.sh"

# Every library (ldd resolves the whole tree) of what the bundle runs.
objs=("$out"/bin/* "$out"/lib/*.so "$LLVM_DIR/lib/libomptarget.so.19.1")
while IFS= read -r f; do objs+=("$f"); done < <(find "$out/programs" -type f)
libs=$(for o in "${objs[@]}"; do
	# A program's own libraries (liboffload_kernels.so) are beside it; the
	# programs have no rpath to LLVM's (the GPU machine has no such folder).
	# (A static mapprof: ldd says so and fails, and there is nothing to carry.)
	{ LD_LIBRARY_PATH="$(dirname "$o"):$LLVM_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$o" 2>/dev/null || true; } |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $2 == "=>" && $3 == "not" { print "NOTFOUND:" $1 }'
done | sort -u)
if grep -q '^NOTFOUND:' <<<"$libs"; then
	die "libraries not found on this machine: $(sed -n 's/^NOTFOUND://p' <<<"$libs" | tr '\n' ' ')"
fi
# The package that owns each library.  ldd names a file by the path it was
# found at, which may be a symlink of another package ($LLVM_DIR/lib's
# libLLVM.so.19.1 is llvm-19-dev's link to libllvm19's file), or /lib for a
# file packaged in /usr/lib (merged /usr): its real path is tried first, then
# the others.  One dpkg-query for all (it reads the whole file lists).
candidates() {
	local real
	real=$(readlink -f "$1")
	printf '%s\n' "$real" "$1" "${real#/usr}" "/usr$real" "${1#/usr}" "/usr$1"
}
owners=$(for l in $libs; do candidates "$l"; done | sort -u | xargs dpkg-query -S 2>/dev/null |
	sed -n 's/^\([^:,]*\)[^ ]* \(\/.*\)$/\2 \1/p' || true)
pkgs=
for l in $libs; do
	case $l in "$out"/*) continue ;; esac
	p=
	for c in $(candidates "$l"); do
		p=$(awk -v f="$c" '$1 == f { print $2; exit }' <<<"$owners")
		[ -z "$p" ] || break
	done
	[ -n "$p" ] || die "no Debian package owns '$l' (a library the bundle loads)"
	case $skip_pkgs in *" $p "*) continue ;; esac
	pkgs="$pkgs $p"
done
# (libomptarget also opens "libomp.so" with dlopen, its OMPT connection to
# libomp, which ldd does not show: setup.sh makes that link to libomp.so.5.)
pkgs=$(tr ' ' '\n' <<<"$pkgs" | sed '/^$/d' | sort -u)

mkdir -p "$DEBCACHE"
# fetch PKG VERSION ARCH: print the path of PKG's .deb in DEBCACHE,
# downloading it unless it is there.
fetch() {
	local file=$1_${2//:/%3a}_$3.deb log
	if [ ! -s "$DEBCACHE/$file" ]; then
		echo "gpu-bundle: downloading $1=$2" >&2
		log=$(cd "$DEBCACHE" && apt-get download -q "$1=$2" 2>&1) || {
			printf '%s\n' "$log" >&2
			return 1
		}
	fi
	[ -s "$DEBCACHE/$file" ] && echo "$DEBCACHE/$file"
}
arch=$(dpkg --print-architecture)
for p in $pkgs; do
	# (the package of this machine's architecture, if several are installed)
	a=$(dpkg-query -W -f='${Architecture}' "$p:$arch" 2>/dev/null || dpkg-query -W -f='${Architecture}' "$p")
	v=$(dpkg-query -W -f='${Version}' "$p:$a")
	file=${p}_${v//:/%3a}_$a.deb
	# The installed version, that mapprof was built and tested against; the
	# archive's current one if the mirror no longer has it (which is noted
	# in DEBCACHE, so that apt is asked once).
	subst=$DEBCACHE/$file.instead
	if [ -s "$DEBCACHE/$file" ]; then
		deb=$DEBCACHE/$file
	elif [ -s "$subst" ] && [ -s "$DEBCACHE/$(cat "$subst")" ]; then
		deb=$DEBCACHE/$(cat "$subst")
	elif apt-get download --print-uris "$p:$a=$v" >/dev/null 2>&1; then
		deb=$(fetch "$p" "$v" "$a") ||
			die "cannot download the Debian package '$p' (apt-get download needs the network)"
	else
		c=$(apt-cache show --no-all-versions "$p:$a" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
		deb=$( [ -n "$c" ] && fetch "$p" "$c" "$a") ||
			die "cannot download the Debian package '$p' (apt-get download needs the network and apt's lists: apt-get update)"
		basename "$deb" >"$subst"
	fi
	[ "$deb" = "$DEBCACHE/$file" ] || echo "gpu-bundle: note: $p $v is no longer in the archive: the bundle has $(basename "$deb")"
	cp "$deb" "$out/debs/"
done

llvm=$(dpkg-query -W -f='${Version}' libomp5-19 2>/dev/null | sed 's/^[0-9]*://; s/-.*//')
commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$src" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	commit="$commit+changes"
fi
{
	echo "target=$GPU_TARGET"
	echo "arch=$GPU_ARCH"
	echo "jit=${GPU_JIT:-0}"
	echo "commit=$commit"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "llvm=${llvm:-unknown}"
	echo "debs=$(ls "$out/debs" | tr '\n' ' ' | sed 's/ $//')"
} >"$out/MANIFEST"

cat >"$out/README" <<EOF
mapprof GPU bundle for $GPU_TARGET ($GPU_ARCH); MANIFEST says which commit.
1. Carry this whole folder to the GPU machine (it needs no LLVM and no network).
2. There: ./setup.sh   (unpacks debs/ into ./prefix and writes ./env.sh)
3. Then:  ./gpu-check.sh   (results in ./gpu-results), or: . ./env.sh && bin/mapprof run -- programs/samples/round_trip
Details: docs/gpu.md in the mapprof sources.
EOF

kib=$(du -sk "$out" | cut -f1)
mib=$(( (kib + 1023) / 1024 ))
echo "gpu-bundle: $out: $mib MiB ($(ls "$out/debs" | wc -l) packages, $(find "$out/programs" -type f | wc -l) program files) for $GPU_TARGET"
if [ "$kib" -gt $((max_mib * 1024)) ]; then
	die "the bundle is $mib MiB, over the limit of $max_mib MiB"
fi
