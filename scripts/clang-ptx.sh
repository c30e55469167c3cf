#!/usr/bin/env bash
# PTX of a generated .cu without nvcc or a CUDA SDK, to read what the
# device code compiles to (Note [Stopping in PTX] in backends/cuda):
#
#   scripts/clang-ptx.sh X.cu [Y.cu ...]    # writes X.ptx beside X.cu, and prints counts
#
# clang-16 compiles the device side (-O3, sm_90, PTX 7.8) against
# scripts/clang-ptx/cuda_device_stub.h. It is clang's PTX, not nvcc's:
# good for the shape of the code (which calls are followed by exit, which
# loads are global or constant), not for timings or registers, which only
# ptxas -v gives. Trs_step and other GPUC_OUT_OF_LINE functions stay out
# of line, as under nvcc.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)/clang-ptx
rc=0
for cu in "$@"; do
  ptx=${cu%.cu}.ptx
  if ! clang-16 -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib \
    -std=c++17 -O3 -I"$here" -include "$here/cuda_device_stub.h" -DGPUC_OUT_OF_LINE='__attribute__((noinline))' \
    -D'GPUC_CHECKED_COPY=_Pragma("unroll 1")' -Xclang -target-feature -Xclang +ptx78 -S -o "$ptx" "$cu"; then
    rc=1
    continue
  fi
  # A fault call whose next instruction is not trap or exit falls, for
  # ptxas, into whatever block comes next.
  ended=$(awk '/_Z17gpuc_device_faultixx,/ { f = 1 } f && /} \/\/ callseq/ { f = 0; w = 1; next }
    w && /^\t[a-z]/ { if ($1 == "trap;" || $1 == "exit;") n++; w = 0 } END { print n + 0 }' "$ptx")
  printf '%s: %d lines, %d calls of gpuc_device_fault (%d followed by trap or exit), %d exit, %d trap, loads of gpuc_checks: %d global, %d constant\n' "$ptx" \
    "$(wc -l < "$ptx")" "$(grep -c '_Z17gpuc_device_faultixx,' "$ptx")" "$ended" "$(grep -c 'exit;' "$ptx")" "$(grep -c 'trap;' "$ptx")" \
    "$(grep -c 'ld\.global\.u32.*\[gpuc_checks\]' "$ptx")" "$(grep -c 'ld\.const\.u32.*\[gpuc_checks\]' "$ptx")"
done
exit $rc
