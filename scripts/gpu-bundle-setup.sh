#!/bin/sh
# setup.sh [PREFIX] - makes a mapprof GPU bundle ready on the machine it was
# carried to (docs/gpu.md): unpacks every Debian package of debs/ into
# PREFIX (default: prefix/ in the bundle) and writes env.sh beside this
# script, which puts PREFIX's libraries on LD_LIBRARY_PATH:
#
#     ./setup.sh && . ./env.sh && bin/mapprof run -- programs/samples/round_trip
#
# Needs no root and no network.  Unpacks with dpkg -x, else with ar and tar,
# else with python3.  Running it again unpacks again (the same files) and
# rewrites env.sh.  (This is scripts/gpu-bundle-setup.sh in mapprof's sources.)
set -eu
bundle=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-$bundle/prefix}

die() {
	echo "setup.sh: error: $*" >&2
	exit 1
}

mkdir -p "$prefix" || die "cannot make the prefix '$prefix'"
prefix=$(cd "$prefix" && pwd)
[ -w "$prefix" ] || die "cannot write to the prefix '$prefix'"
set -- "$bundle"/debs/*.deb
[ -f "$1" ] || die "no Debian packages in '$bundle/debs': is this a mapprof GPU bundle?"

# unpack DEB: its files into $prefix.
unpack() {
	if command -v dpkg >/dev/null 2>&1; then
		dpkg -x "$1" "$prefix" && return 0
		echo "setup.sh: dpkg -x failed on '$1', trying ar and tar" >&2
	fi
	if command -v ar >/dev/null 2>&1 && command -v tar >/dev/null 2>&1; then
		tmp=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-setup.XXXXXX") || return 1
		data=$(cd "$tmp" && ar t "$1" | grep '^data\.tar') &&
			(cd "$tmp" && ar x "$1" "$data") &&
			tar -xf "$tmp/$data" -C "$prefix"
		rc=$?
		rm -rf "$tmp"
		[ "$rc" -eq 0 ] && return 0
		echo "setup.sh: ar and tar failed on '$1', trying python3" >&2
	fi
	command -v python3 >/dev/null 2>&1 || return 1
	python3 - "$1" "$prefix" <<'PY'
import io, sys, tarfile
deb, dest = sys.argv[1], sys.argv[2]
with open(deb, "rb") as f:
    blob = f.read()
if blob[:8] != b"!<arch>\n":
    sys.exit("not an ar archive: " + deb)
pos = 8
while pos + 60 <= len(blob):
    name = blob[pos:pos + 16].decode().strip().rstrip("/")
    size = int(blob[pos + 48:pos + 58].decode().strip())
    body = blob[pos + 60:pos + 60 + size]
    if name.startswith("data.tar"):
        if name.endswith(".zst"):
            sys.exit("python3 cannot read zstd: " + deb)
        with tarfile.open(fileobj=io.BytesIO(body)) as t:
            t.extractall(dest)
        sys.exit(0)
    pos += 60 + size + (size & 1)
sys.exit("no data.tar in " + deb)
PY
}

for deb in "$@"; do
	unpack "$deb" || die "cannot unpack '$deb' into '$prefix' (no dpkg, and ar+tar and python3 failed or are missing)"
	echo "setup.sh: unpacked $(basename "$deb")"
done

llvmlib=$prefix/usr/lib/llvm-19/lib
[ -f "$llvmlib/libomptarget.so.19.1" ] || die "no libomptarget.so.19.1 in '$llvmlib' after unpacking: the bundle lacks libomp5-19"
# libomptarget connects to libomp's OMPT interface by opening "libomp.so"
# (dlopen): Debian has that name only in libomp-19-dev, which the bundle
# does not carry.  The same for libomptarget's own development name.
[ -e "$llvmlib/libomp.so" ] || ln -s libomp.so.5 "$llvmlib/libomp.so"
[ -e "$llvmlib/libomptarget.so" ] || ln -s libomptarget.so.19.1 "$llvmlib/libomptarget.so"

# LLVM's directory first, then the multiarch ones, then any other folder
# with shared libraries the packages brought.
path=$llvmlib:$prefix/usr/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu
for d in $(find "$prefix" -name '*.so*' \( -type f -o -type l \) -exec dirname {} \; | sort -u); do
	case ":$path:" in *":$d:"*) ;; *) path=$path:$d ;; esac
done
cat >"$bundle/env.sh.tmp" <<EOF
# Written by setup.sh: source it ('. ./env.sh') to run the bundle's programs.
export MAPPROF_BUNDLE='$bundle'
export MAPPROF_PREFIX='$prefix'
export LD_LIBRARY_PATH='$path'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export PATH='$bundle/bin':\$PATH
EOF
# A bundle built with GPU_JIT=1: its programs' device code needs the JIT's
# NVPTX target, which lib/libjit-targets.so registers (scripts/gpu-jit-targets.c).
if [ -f "$bundle/lib/libjit-targets.so" ]; then
	echo "export LD_PRELOAD='$bundle/lib/libjit-targets.so'\${LD_PRELOAD:+:\$LD_PRELOAD}" >>"$bundle/env.sh.tmp"
fi
mv "$bundle/env.sh.tmp" "$bundle/env.sh" || die "cannot write '$bundle/env.sh'"
echo "setup.sh: $# packages unpacked into $prefix; now run: . '$bundle/env.sh'"
