#!/usr/bin/env bash
# fortran_builds.sh - the Fortran OpenMP offload sample
# (samples/fortran/update_loop.f90: target, target data, enter/exit data,
# update) builds with flang-19 for nvptx64 (sm_90), a compile-and-link check
# only: flang-19's x86_64 host offload does not link, and without a GPU an
# nvptx-only program runs its regions on the host with no OMPT target event
# (docs/openacc.md, "Fortran").  The binary must embed its sm_90 image and
# carry the flang names report/attribute/flang_name.c makes readable
# (tests/unit/test_flang_name.c checks those names).  Built at -O2 without
# -g: flang-19 hands the device code's debug information to ptxas, which
# refuses it when optimizing ("Optimized debugging not supported"), and at
# -O0 LLVM 19 cannot select an 8-bit atomic store of its device runtime.
# Skips with the reason where flang-19 or the CUDA toolkit is missing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

flang=${FLANG:-flang-new-19}
command -v "$flang" >/dev/null || skip "no '$flang' (Debian's flang-19; 'make test-deps' installs it)"
command -v ptxas >/dev/null || [ -x /usr/local/cuda/bin/ptxas ] ||
	skip "no CUDA toolkit (ptxas) for nvptx64: 'make test-deps' unpacks Debian's nvidia-cuda-toolkit (see tests/e2e/gpu_builds.sh)"
objdump=$LLVM_DIR/bin/llvm-objdump
[ -x "$objdump" ] || skip "no '$objdump' (Debian's llvm-19)"
dir=$(tmpdir)
src=$MAPPROF_SRC/samples/fortran/update_loop.f90
(cd "$dir" && PATH=$PATH:/usr/local/cuda/bin "$flang" -fopenmp --offload-arch=sm_90 -O2 "$src" -o update_loop \
	-L"$LLVM_DIR/lib" -Wl,-rpath,"$LLVM_DIR/lib") >"$dir/build.log" 2>&1 ||
	fail "flang-19 cannot build $(basename "$src") for nvptx64: $(tail -5 "$dir/build.log")"
images=$("$objdump" --offloading "$dir/update_loop" 2>&1) || fail "llvm-objdump --offloading: $images"
grep -Eq '^triple +nvptx64-nvidia-cuda$' <<<"$images" || fail "no nvptx64 image: $images"
grep -Eq '^arch +sm_90$' <<<"$images" || fail "no sm_90 image: $images"
syms=$(nm "$dir/update_loop")
for s in _QQmain _QMfieldPstep; do
	grep -Eq " T $s\$" <<<"$syms" || fail "no function '$s' in the build"
done
grep -Eq '__omp_offloading_[0-9a-f]+_[0-9a-f]+__QMfieldPstep_l[0-9]+' <<<"$syms" ||
	fail "no offload entry of field::step"
echo "ok: $(basename "$src") built for nvptx64 sm_90 with its flang names"
