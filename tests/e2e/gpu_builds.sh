#!/usr/bin/env bash
# gpu_builds.sh - every program of the GPU bundle builds for a GPU, here,
# without one (issue 28): 'make gpu-builds' compiles and links samples/*.c,
# tests/fixed/*.c, bench/real/*.c (naive and fixed) and tests/gpu/*.c for
# nvptx64-nvidia-cuda (sm_90), and each binary (and the samples' library)
# must embed that device image, as 'llvm-objdump --offloading' lists it.
# gpu_builds_amdgcn.sh runs this for amdgcn-amd-amdhsa (GPU_BUILDS_TARGET).
# Skips, naming what is missing, only where the toolkit is not installed
# ('make test-deps' installs both).  The programs go to $MAPPROF_BUILD/gpu/,
# where 'make gpu-bundle' takes them: make rebuilds only what changed.
. "$(dirname "$0")/lib.sh"
target=${GPU_BUILDS_TARGET:-nvptx64-nvidia-cuda}
objdump=$LLVM_DIR/bin/llvm-objdump
[ -x "$objdump" ] || skip "no '$objdump' (Debian's llvm-19)"
mk() {
	make --no-print-directory -C "$MAPPROF_SRC" B="$MAPPROF_BUILD" OMPCC="$OMPCC" LLVM_DIR="$LLVM_DIR" \
		GPU_TARGET="$target" "$@"
}
info=$(mk -s gpu-info) || fail "make gpu-info failed: $info"
val() { sed -n "s/^$1=//p" <<<"$info"; }
arch=$(val GPU_ARCH)
case $target in
nvptx64-nvidia-cuda)
	[ -n "$(val CUDA_PATH)" ] ||
		skip "no CUDA toolkit for $target: none of $(val CUDA_CANDIDATES) exists ('make test-deps' unpacks Debian's nvidia-cuda-toolkit into $(val CUDA_LOCAL))"
	;;
amdgcn-amd-amdhsa)
	[ -n "$(val ROCM_DEVICE_LIB_PATH)" ] ||
		skip "no ROCm device libraries for $target: no /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc nor /opt/rocm/amdgcn/bitcode/ocml.bc (Debian's rocm-device-libs)"
	[ -x "$LLVM_DIR/bin/ld.lld" ] || skip "no '$LLVM_DIR/bin/ld.lld' for $target (Debian's lld-19)"
	;;
esac

log=$(mk -j"$(nproc)" gpu-builds 2>&1) || { printf '%s\n' "$log"; fail "make gpu-builds GPU_TARGET=$target failed"; }

# What must be there, from the sources (not from the Makefile's lists).
gb=$MAPPROF_BUILD/gpu/$target
want=("$gb/samples/liboffload_kernels.so")
for f in "$MAPPROF_SRC"/samples/*.c; do want+=("$gb/samples/$(basename "$f" .c)"); done
for f in "$MAPPROF_SRC"/tests/fixed/*.c; do want+=("$gb/fixed/$(basename "$f" .c)"); done
for f in "$MAPPROF_SRC"/bench/real/*.c; do want+=("$gb/real/$(basename "$f" .c).naive" "$gb/real/$(basename "$f" .c).fixed"); done
for f in "$MAPPROF_SRC"/tests/gpu/*.c; do
	[ -f "$f" ] && want+=("$gb/check/$(basename "$f" .c)")
done
for p in "${want[@]}"; do
	[ -f "$p" ] || fail "make gpu-builds did not build '${p#"$MAPPROF_BUILD"/}'"
	images=$("$objdump" --offloading "$p" 2>&1) || fail "llvm-objdump --offloading '$p': $images"
	grep -Eq "^triple +$target\$" <<<"$images" ||
		fail "'${p#"$MAPPROF_BUILD"/}' embeds no $target image: $(tr '\n' ' ' <<<"$images")"
	grep -Eq "^arch +$arch\$" <<<"$images" ||
		fail "'${p#"$MAPPROF_BUILD"/}' embeds no image for $arch: $(tr '\n' ' ' <<<"$images")"
done
echo "${#want[@]} programs and libraries built for $target, each with its $arch image"
