#!/usr/bin/env bash
# What scripts/bench-chr-input.sh needs (issue 18, streamed input): the
# CHR programs min, gcd, sum and fw compiled by the gpuc of BASE (before)
# and of the checkout (after), chr_gen.c and the script, into DIR:
#
#   scripts/chr-input-artifacts.sh DIR [BASE]   # here; BASE: fee469a
#   DIR/bench-chr-input.sh DIR                  # on the GPU machine
set -euo pipefail
dir=${1:?usage: chr-input-artifacts.sh DIR [BASE]}
base=${2:-fee469a}
root=$(git rev-parse --show-toplevel)
rm -rf "$dir" && mkdir -p "$dir/before" "$dir/after"
dir=$(cd "$dir" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/base"
git -C "$root" archive "$base" | tar -x -C "$tmp/base"
(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/gpuc-before" ./cmd/gpuc)
(cd "$root" && CGO_ENABLED=0 go build -o "$tmp/gpuc-after" ./cmd/gpuc)
printf 'true.\n' > "$tmp/none.pl"
store() { # store BASE ARGS...: the --input flags of a store read from files
  local b=$1 a
  shift
  echo -n "--input ${b}_top"
  for a in "$@"; do echo -n " --input ${b}_a$a"; done
}
for side in before after; do
  for p in "fw edge3 0 1 2" "min min1 0" "gcd gcd1 0" "sum sum1 0"; do
    set -- $p
    name=$1 b=$2
    shift 2
    "$tmp/gpuc-$side" compile --checks=on "$root/examples/chr/$name.chr" --stats --query "$tmp/none.pl" \
      $(store "$b" "$@") -o "$dir/$side/chr-$name.cu" &
  done
done
wait
for side in before after; do
  for name in fw min gcd sum; do
    [ -s "$dir/$side/chr-$name.cu" ] || { echo "chr-input-artifacts: no $side/chr-$name.cu" >&2; exit 1; }
  done
done
cp "$root/scripts/bench/chr_gen.c" "$root/scripts/bench/input_probe.cu" "$root/scripts/bench-chr-input.sh" "$dir/"
echo "before: $(git -C "$root" rev-parse --short "$base"), after: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo +dirty)" > "$dir/COMMITS"
cat "$dir/COMMITS"
