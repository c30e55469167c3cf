#!/usr/bin/env bash
# First half of the GPU check (needs Go, not a GPU): compile every example
# to CUDA C and record the interpreter's output as the expected output.
#
#   scripts/gpu-artifacts.sh DIR
#
# For examples/<family>/<name>.<ext> it writes DIR/<family>-<name>.cu,
# DIR/<family>-<name>.expected and, when examples/<family>/<name>.args
# exists, DIR/<family>-<name>.args (the program's command-line arguments).
# scripts/gpu-check.sh DIR then needs only nvcc and a GPU.
set -euo pipefail
dir=${1:?usage: gpu-artifacts.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
gpuc=$root/bin/gpuc
[ -x "$gpuc" ] || { echo "gpu-artifacts: $gpuc missing; run make first" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir"
n=0
for src in "$root"/examples/*/*.kir "$root"/examples/*/*.fork "$root"/examples/*/*.trs "$root"/examples/*/*.chr; do
  [ -e "$src" ] || continue
  family=$(basename "$(dirname "$src")")
  base=$(basename "${src%.*}")
  name=$family-$base
  args=()
  if [ -f "${src%.*}.args" ]; then
    read -r -a args < "${src%.*}.args"
    cp "${src%.*}.args" "$dir/$name.args"
  fi
  "$gpuc" compile "$src" -o "$dir/$name.cu"
  (cd "$(dirname "$src")" && "$gpuc" run "$src" "${args[@]}") > "$dir/$name.expected"
  n=$((n + 1))
done
cp "$root/scripts/gpu-check.sh" "$dir/"
echo "gpu-artifacts: $n programs in $dir"
