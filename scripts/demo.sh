#!/usr/bin/env bash
# Runs gpuc on the embedded example: on the GPU when nvcc is present,
# otherwise in the reference interpreter. `make demo` calls it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuc=$root/bin/gpuc
example=$root/examples/kir/scan.kir
echo "example: ${example#$root/} (Kogge-Stone prefix sums over 4096 numbers)"
if command -v nvcc >/dev/null && nvidia-smi >/dev/null 2>&1; then
  echo "nvcc and a GPU found: compiling to CUDA and running on the GPU"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$gpuc" compile "$example" -o "$tmp/scan.cu"
  nvcc -O3 -arch="${GPUC_ARCH:-sm_90}" -o "$tmp/scan" "$tmp/scan.cu"
  "$tmp/scan" --time
else
  echo "nvcc or a GPU not found: running in the gpuc interpreter"
  "$gpuc" run "$example"
fi
