#!/usr/bin/env bash
# chr-fw-artifacts.sh DIR [BEFORE]: what scripts/bench-chr-fw.sh needs
# (issue 18, Floyd-Warshall 1024 against the hand-written CUDA), built
# here, where Go is: examples/chr/fw.chr compiled to CUDA by this
# checkout's gpuc (chr-fw.cu) and by the gpuc of commit BEFORE (default
# fee469a, main before Note [Guard bounds]; chr-fw-before.cu), both as
# bench-chr.sh's chr-fw.cu is (Makefile chr-artifacts), with the
# hand-written CUDA, chr_gen and the script. Carry DIR to the GPU
# machine and run `bench-chr-fw.sh DIR` there.
set -euo pipefail
dir=${1:?usage: chr-fw-artifacts.sh DIR [BEFORE]}
before=${2:-fee469a}
root=$(git rev-parse --show-toplevel)
go=${GO:-go}
rm -rf "$dir" && mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
git -C "$root" archive "$before" | tar -x -C "$src"
(cd "$src" && CGO_ENABLED=0 "$go" build -o "$dir/gpuc-before" ./cmd/gpuc)
(cd "$root" && CGO_ENABLED=0 "$go" build -o "$dir/gpuc" ./cmd/gpuc)
printf 'true.\n' > "$dir/none.pl"
store="--input edge3_top --input edge3_a0 --input edge3_a1 --input edge3_a2"
"$dir/gpuc-before" compile "$root/examples/chr/fw.chr" --stats --query "$dir/none.pl" $store -o "$dir/chr-fw-before.cu"
"$dir/gpuc" compile "$root/examples/chr/fw.chr" --stats --query "$dir/none.pl" $store -o "$dir/chr-fw.cu"
cp "$root/scripts/bench/chr_fw.cu" "$root/scripts/bench/chr_gen.c" "$root/scripts/bench-chr-fw.sh" "$dir/"
rm -f "$dir/gpuc-before" "$dir/gpuc"
echo "chr-fw-artifacts: $dir (before: $before, after: $(git -C "$root" rev-parse --short HEAD))"
