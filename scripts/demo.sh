#!/usr/bin/env bash
# Runs gpuc's main job on the embedded example, the issue's Fork prefix
# sum: on the GPU when nvcc and a GPU are present (gpuc compile, nvcc, run),
# otherwise in the reference interpreter. `make demo` calls it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gpuc=$root/bin/gpuc
example=$root/examples/fork/prefix.fork
echo "example: ${example#$root/} (prefix sums of 1..N on N PRAM processors, N=1000)"
if command -v nvcc >/dev/null && nvidia-smi >/dev/null 2>&1; then
  echo "nvcc and a GPU found: compiling to CUDA and running on the GPU"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$gpuc" compile "$example" -o "$tmp/prefix.cu" --report
  nvcc -O3 -arch="${GPUC_ARCH:-sm_90}" -o "$tmp/prefix" "$tmp/prefix.cu"
  "$tmp/prefix" N=1000 --time
else
  echo "nvcc or a GPU not found: running in the gpuc interpreter"
  "$gpuc" run "$example" N=1000
  echo "(what gpuc would compile for the GPU: gpuc compile ${example#$root/} --report -o prefix.cu)"
fi
