#!/usr/bin/env bash
# chr-ab-artifacts.sh DIR [BEFORE]: what scripts/bench-chr-ab.sh needs
# (issue 18: Floyd-Warshall's device time against the hand-written CUDA,
# and the share outside kernels of fw, gcd and sum), built here, where Go
# is: examples/chr/{fw,gcd,sum}.chr compiled to CUDA by this checkout's
# gpuc (chr-NAME.cu) and by the gpuc of commit BEFORE (default e94aa23,
# main before Note [Strided cooperative kernels]; chr-NAME-before.cu), as the Makefile's chr-artifacts compiles them, with
# the hand-written CUDA, chr_gen and the script. `make chr-ab-artifacts`
# runs it into bench-artifacts/chr-ab; carry DIR to the GPU machine and run
# `bench-chr-ab.sh DIR` there (GPU=0 with a fake nvcc checks the script).
set -euo pipefail
dir=${1:?usage: chr-ab-artifacts.sh DIR [BEFORE]}
before=${2:-e94aa23}
root=$(git rev-parse --show-toplevel)
go=${GO:-go}
checks=${CHECKS:-on}
rm -rf "$dir" && mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git -C "$root" archive "$before" | tar -x -C "$src"
(cd "$src" && CGO_ENABLED=0 "$go" build -o "$dir/gpuc-before" ./cmd/gpuc)
(cd "$root" && CGO_ENABLED=0 "$go" build -o "$dir/gpuc" ./cmd/gpuc)
printf 'true.\n' > "$dir/none.pl"
# store BASE ARGS...: the --input flags of a store read from files.
store() {
  local b=$1 a
  shift
  echo -n "--input ${b}_top"
  for a in "$@"; do echo -n " --input ${b}_a$a"; done
}
for v in before after; do
  g="$dir/gpuc" s=""
  [ "$v" = before ] && g="$dir/gpuc-before" s="-before"
  # shellcheck disable=SC2046
  "$g" compile --checks="$checks" "$root/examples/chr/fw.chr" --stats --query "$dir/none.pl" $(store edge3 0 1 2) -o "$dir/chr-fw$s.cu"
  for w in gcd sum; do
    # shellcheck disable=SC2046
    "$g" compile --checks="$checks" "$root/examples/chr/$w.chr" --stats --query "$dir/none.pl" $(store "${w}1" 0) -o "$dir/chr-$w$s.cu"
  done
done
cp "$root/scripts/bench/chr_fw.cu" "$root/scripts/bench/chr_gen.c" "$root/scripts/bench-chr-ab.sh" "$dir/"
rm -f "$dir/gpuc-before" "$dir/gpuc"
echo "chr-ab-artifacts: $dir ($(du -sh "$dir" | cut -f1); before: $before, after: $(git -C "$root" rev-parse --short HEAD))"
