#!/usr/bin/env bash
# The host build on every core against one (needs Go, clang-16 and
# clang++-16, no GPU): tree merge sort at depth D (16) through
# --target=host, run with GPUC_THREADS=1 and GPUC_THREADS=0, every core
# this process may use (Note [Blocks across cores] in
# backends/llvm/kernel.go). Both runs must print the same bytes; the
# script prints each run's wall clock, the median of REPS (5), and their
# ratio. Run it on a quiet machine: with other work on the cores the pool
# has nothing to gain.
#
#   scripts/bench-host.sh [DIR]     # DIR: where to build (a new temporary folder)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
depth=${D:-16}
reps=${REPS:-5}
cap=${CAPACITY:-16000000}
mkdir -p "$dir" || exit 1
cd "$root" && go build -o "$dir/gpuc" ./cmd/gpuc || exit 1
cd "$dir" || exit 1
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
input="Gen($(nest "$depth" 'Zero()' S), $list5)"
src=$root/examples/trs/treemergesort.trs
./gpuc compile --emit=llvm --target=host "$src" --input "$input" --print=summary --stats -o tms.ll || exit 1
./gpuc compile --emit=llvm-host --target=host "$src" --input "$input" --print=summary --stats -o tms.cpp || exit 1
clang-16 -O2 -Wno-override-module -c tms.ll -o tms.o || exit 1
clang++-16 -std=c++17 -O2 -o tms tms.cpp tms.o || exit 1
echo "bench-host: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-host: tree merge sort depth $depth, CAPACITY=$cap, median of $reps runs"

# median MS...: the middle value.
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# runs THREADS: sets ms to the median wall clock in ms and checks the output.
runs() {
  local t0 t1 all=() cpus=() i
  for ((i = 0; i < reps; i++)); do
    t0=$(date +%s%N)
    # GPUC_THREADS=0: one worker per core this process may use (the
    # default is one worker).
    /usr/bin/time -f '%U %S' -o "cpu.$1" env GPUC_THREADS="$1" ./tms CAPACITY="$cap" > "out.$1" 2> "err.$1"
    t1=$(date +%s%N)
    all+=($(( (t1 - t0) / 1000000 )))
    cpus+=("$(awk '{ printf "%d", ($1 + $2) * 1000 }' "cpu.$1")")
  done
  ms=$(median "${all[@]}")
  echo "GPUC_THREADS=$1: wall ${all[*]} ms, median $ms ms; CPU time (user + sys) ${cpus[*]} ms; $(head -1 "out.$1")"
}
runs 1
one=$ms
runs 0
every=$ms
cmp -s out.1 out.0 || { echo "bench-host: the outputs differ"; exit 1; }
awk -v a="$one" -v b="$every" 'BEGIN { printf "bench-host: one core / every core = %.2f\n", a / b }'
