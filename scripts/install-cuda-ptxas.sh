#!/bin/sh
# install-cuda-ptxas.sh DEST - the pieces of a CUDA toolkit that clang needs
# to build OpenMP offload programs for nvptx64-nvidia-cuda (no GPU needed),
# unpacked from Debian 12's nvidia-cuda-toolkit into DEST:
#
#     DEST/bin/ptxas, nvlink, fatbinary   (CUDA 11.8: knows sm_90)
#     DEST/nvvm/libdevice/libdevice.10.bc
#     DEST/include/cuda.h                 only its CUDA_VERSION line
#
# Why not 'apt-get install nvidia-cuda-toolkit': with its dependencies that is
# 56 packages, 1.5 GB to download, and the NVIDIA driver's libraries (libcuda1,
# the GLX alternatives) on a machine that has no GPU.  Its own package is
# 80 MiB and holds all that clang runs.  It is in Debian's 'non-free'
# component: this script fetches it with a private apt configuration (a
# sources list with 'non-free' and private package lists under a temporary
# folder), so the system's sources stay as they are.  No root needed.
#
# clang reads the CUDA version from include/cuda.h (the header itself is in
# nvidia-cuda-dev, 740 MB); without it, clang assumes the newest CUDA and
# writes PTX that CUDA 11.8's ptxas rejects.  Does nothing when DEST/bin/ptxas
# is there.
set -eu
dest=${1:?usage: install-cuda-ptxas.sh DEST}
pkg=nvidia-cuda-toolkit
if [ -x "$dest/bin/ptxas" ]; then
	echo "cuda: $dest/bin/ptxas is there"
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
	echo "cuda: this is not a Debian system (no apt-get): install a CUDA toolkit and give CUDA_PATH=" >&2
	exit 1
fi
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || { echo "cuda: cannot tell the Debian release (no VERSION_CODENAME in /etc/os-release)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mapprof-cuda.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/deb" "$tmp/x"
echo "deb http://deb.debian.org/debian $codename non-free" >"$tmp/sources.list"
# Private lists, cache and sources; the download as this user (no _apt sandbox).
set -- -o Dir::Etc::SourceList="$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$tmp/lists" -o Dir::Cache="$tmp/cache" \
	-o APT::Sandbox::User="$(id -un)" -o Debug::NoLocking=1
echo "cuda: fetching Debian's $pkg ($codename non-free, about 80 MiB) for ptxas and libdevice"
apt-get "$@" -q update >"$tmp/update.log" 2>&1 || {
	cat "$tmp/update.log" >&2
	echo "cuda: cannot read the package list of $codename non-free (network?)" >&2
	exit 1
}
(cd "$tmp/deb" && apt-get "$@" -q download "$pkg") || {
	echo "cuda: cannot download $pkg" >&2
	exit 1
}
dpkg -x "$tmp"/deb/"$pkg"_*.deb "$tmp/x"
version=$(dpkg-deb -f "$tmp"/deb/"$pkg"_*.deb Version)
# 11.8.89~11.8.0-5~deb12u1 -> 11.8 -> 11080
major=$(echo "$version" | sed 's/^\([0-9]*\)\..*/\1/')
minor=$(echo "$version" | sed 's/^[0-9]*\.\([0-9]*\).*/\1/')
libdevice=$(find "$tmp/x" -name libdevice.10.bc | head -n 1)
for f in ptxas nvlink fatbinary; do
	[ -x "$tmp/x/usr/bin/$f" ] || { echo "cuda: $pkg $version has no usr/bin/$f" >&2; exit 1; }
done
[ -n "$libdevice" ] || { echo "cuda: $pkg $version has no libdevice.10.bc" >&2; exit 1; }
rm -rf "$dest.new"
mkdir -p "$dest.new/bin" "$dest.new/nvvm/libdevice" "$dest.new/include" "$dest.new/lib64"
cp "$tmp/x/usr/bin/ptxas" "$tmp/x/usr/bin/nvlink" "$tmp/x/usr/bin/fatbinary" "$dest.new/bin/"
cp "$libdevice" "$dest.new/nvvm/libdevice/"
{
	echo "/* Written by mapprof's scripts/install-cuda-ptxas.sh from $pkg $version:"
	echo "   only the version, which clang reads to choose the PTX version. */"
	echo "#define CUDA_VERSION $((major * 1000 + minor * 10))"
} >"$dest.new/include/cuda.h"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "cuda: CUDA $major.$minor's ptxas, nvlink, fatbinary and libdevice in $dest"
