#!/usr/bin/env bash
# The host build on every core against one (needs Go, clang-16 and
# clang++-16, no GPU): tree merge sort at depth D (16) through
# --target=host, two programs: tms, the one-device program, and tmsw, the
# world program (--world: each worker thread a device that owns its part
# of the store, Note [World on threads] in backends/abi). Each runs with
# GPUC_THREADS=1, GPUC_THREADS=0 (every core this process may use, Note
# [Blocks across cores] in backends/llvm/kernel.go) and the default
# (every core where a launch site measures a gain, Note [Pool by measure]
# in backends/cuda/cpu.h), REPS (5) times, the settings taking turns so
# that a change of load hits each. Every run must print the same bytes;
# the script prints each run's wall clock and CPU time (user + sys), the
# medians, and the medians of the ratios of each turn to the one-device
# program on one worker.
# Run it on a quiet machine: with other work on the cores the pool has
# nothing to gain. On a shared machine, PRIO='chrt -f 1' (root) runs each
# program ahead of the others' work (the kernel still leaves them 5% of
# the CPU). A DIR that holds tms.cpp and tms.o already (make
# bench-artifacts puts them in host-tms, built with BUILD_ONLY=1) is only
# linked (and tmsw.cpp, tmsw.o likewise), with clang++-16 or g++: the GPU machine may have no Go or LLVM,
# and there `taskset -c 0,1` gives a 2-core figure.
#
#   scripts/bench-host.sh [DIR]     # DIR: where to build (a new temporary folder)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
depth=${D:-16}
reps=${REPS:-5}
cap=${CAPACITY:-16000000}
mkdir -p "$dir" || exit 1
if [ ! -f "$dir/tms.cpp" ] || [ ! -f "$dir/tms.o" ] || [ ! -f "$dir/tmsw.o" ] || [ -n "${BUILD_ONLY:-}" ]; then
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
  # The world program; --capacity gives it 32-bit slot ids, as the
  # one-device program has.
  ./gpuc compile --world --capacity "$cap" --emit=llvm --target=host "$src" --input "$input" --print=summary --stats -o tmsw.ll || exit 1
  ./gpuc compile --world --capacity "$cap" --emit=llvm-host --target=host "$src" --input "$input" --print=summary --stats -o tmsw.cpp || exit 1
  clang-16 -O2 -Wno-override-module -c tmsw.ll -o tmsw.o || exit 1
  rm -f gpuc tms.ll tmsw.ll
  [ -z "${BUILD_ONLY:-}" ] || exit 0
fi
cd "$dir" || exit 1
cxx=clang++-16
command -v "$cxx" > /dev/null || cxx=g++
$cxx -std=c++17 -O2 -o tms tms.cpp tms.o -lpthread || exit 1
$cxx -std=c++17 -O2 -o tmsw tmsw.cpp tmsw.o -lpthread || exit 1
echo "bench-host: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-host: tree merge sort (depth $depth unless DIR was built with another D), CAPACITY=$cap, $reps turns${PRIO:+, under $PRIO}, linked by $cxx"

# median V...: the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run PROG THREADS: runs PROG once, sets ms and cpu to its wall clock and
# CPU time in ms, and checks its output against the first run's. THREADS
# is GPUC_THREADS's value, or "default" to leave it unset.
run() {
  local t0 t1 set=(env -u GPUC_THREADS) tag=$1.$2
  [ "$2" = default ] || set=(env GPUC_THREADS="$2")
  t0=$(date +%s%N)
  ${PRIO:-} /usr/bin/time -f '%U %S' -o "cpu.$tag" "${set[@]}" "./$1" CAPACITY="$cap" > "out.$tag" 2> "err.$tag" || { echo "bench-host: $1 GPUC_THREADS=$2 failed:"; cat "err.$tag"; exit 1; }
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "cpu.$tag")
  [ -f out.first ] || cp "out.$tag" out.first
  cmp -s out.first "out.$tag" || { echo "bench-host: the outputs differ ($1 GPUC_THREADS=$2)"; exit 1; }
}
rm -f out.first
# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
settings=("tms 1" "tms 0" "tms default" "tmsw 1" "tmsw 0" "tmsw default")
declare -A wall cpus turns
for ((i = 0; i < reps; i++)); do
  for s in "${settings[@]}"; do
    run $s
    wall[$s]+="$ms " cpus[$s]+="$cpu "
    [ "$s" = "tms 1" ] && base=$ms
    turns[$s]+="$(ratio "$base" "$ms") "
  done
done
for s in "${settings[@]}"; do
  read -ra w <<< "${wall[$s]}"
  read -ra c <<< "${cpus[$s]}"
  read -ra r <<< "${turns[$s]}"
  printf '%-13s wall %s ms, median %s; CPU %s ms, median %s; one-device one worker / this, per turn: %s, median %s\n' \
    "$s:" "${w[*]}" "$(median "${w[@]}")" "${c[*]}" "$(median "${c[@]}")" "${r[*]}" "$(median "${r[@]}")"
done
echo "bench-host: load $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(head -1 out.first)"
