#!/usr/bin/env bash
# The host build on every core against one (needs Go, clang-16 and
# clang++-16, no GPU): tree merge sort at depth D (16) through
# --target=host, run with GPUC_THREADS=1, GPUC_THREADS=0 (every core this
# process may use, Note [Blocks across cores] in backends/llvm/kernel.go)
# and the default (every core where a launch site measures a gain, Note
# [Pool by measure] in backends/cuda/cpu.h), REPS (5) times, the settings
# taking turns so that a change of load hits each. Every run must print
# the same bytes; the script prints each run's wall clock and CPU time
# (user + sys), the medians, and the medians of the ratios of each turn.
# Run it on a quiet machine: with other work on the cores the pool has
# nothing to gain. On a shared machine, PRIO='chrt -f 1' (root) runs each
# program ahead of the others' work (the kernel still leaves them 5% of
# the CPU). A DIR that holds tms.cpp and tms.o already (make
# bench-artifacts puts them in host-tms, built with BUILD_ONLY=1) is only
# linked, with clang++-16 or g++: the GPU machine may have no Go or LLVM,
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
if [ ! -f "$dir/tms.cpp" ] || [ ! -f "$dir/tms.o" ] || [ -n "${BUILD_ONLY:-}" ]; then
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
  rm -f gpuc tms.ll
  [ -z "${BUILD_ONLY:-}" ] || exit 0
fi
cd "$dir" || exit 1
cxx=clang++-16
command -v "$cxx" > /dev/null || cxx=g++
$cxx -std=c++17 -O2 -o tms tms.cpp tms.o -lpthread || exit 1
echo "bench-host: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench-host: tree merge sort (depth $depth unless DIR was built with another D), CAPACITY=$cap, $reps turns${PRIO:+, under $PRIO}, linked by $cxx"

# median V...: the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# run THREADS: runs the program once, sets ms and cpu to its wall clock
# and CPU time in ms, and checks its output against the first run's.
# THREADS is GPUC_THREADS's value, or "default" to leave it unset.
run() {
  local t0 t1 set=(env -u GPUC_THREADS)
  [ "$1" = default ] || set=(env GPUC_THREADS="$1")
  t0=$(date +%s%N)
  ${PRIO:-} /usr/bin/time -f '%U %S' -o "cpu.$1" "${set[@]}" ./tms CAPACITY="$cap" > "out.$1" 2> "err.$1" || { echo "bench-host: GPUC_THREADS=$1 failed:"; cat "err.$1"; exit 1; }
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  cpu=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "cpu.$1")
  [ -f out.first ] || cp "out.$1" out.first
  cmp -s out.first "out.$1" || { echo "bench-host: the outputs differ (GPUC_THREADS=$1)"; exit 1; }
}
rm -f out.first
# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
w1=() c1=() w0=() c0=() wd=() cd=() rw=() rc=() rd=()
for ((i = 0; i < reps; i++)); do
  run 1; w1+=("$ms"); c1+=("$cpu")
  run 0; w0+=("$ms"); c0+=("$cpu")
  run default; wd+=("$ms"); cd+=("$cpu")
  rw+=("$(ratio "${w1[i]}" "${w0[i]}")") rc+=("$(ratio "${c0[i]}" "${c1[i]}")") rd+=("$(ratio "${w1[i]}" "${wd[i]}")")
done
echo "GPUC_THREADS=1: wall ${w1[*]} ms, median $(median "${w1[@]}"); CPU ${c1[*]} ms, median $(median "${c1[@]}")"
echo "GPUC_THREADS=0: wall ${w0[*]} ms, median $(median "${w0[@]}"); CPU ${c0[*]} ms, median $(median "${c0[@]}")"
echo "default:        wall ${wd[*]} ms, median $(median "${wd[@]}"); CPU ${cd[*]} ms, median $(median "${cd[@]}")"
echo "bench-host: $(head -1 out.first)"
echo "bench-host: wall one / every core, per turn ${rw[*]}, median $(median "${rw[@]}") (the target: 1.5 or more)"
echo "bench-host: CPU every / one core, per turn ${rc[*]}, median $(median "${rc[@]}") (1.0: no cost of sharing)"
echo "bench-host: wall one / default, per turn ${rd[*]}, median $(median "${rd[@]}") (1.0 or more: the default loses nothing)"
