#!/usr/bin/env bash
# Fork benchmarks on the GPU machine (needs nvcc, gcc and a GPU, not Go):
#
#   make bench-artifacts           # here: programs and sources into bench-artifacts/
#   scripts/bench-fork.sh DIR      # there
#
# For each workload it runs the program gpuc compiled from examples/fork,
# a sequential C version (gcc -O2) on the same machine, the interpreter
# (a static gpuc binary) at a smaller size, and for matmul a hand-written
# naive CUDA kernel; it checks that all print the same, and prints the
# times and ratios, with the launch count and the share of device time
# outside kernels (synchronisation) from the program's --time. The
# quicksort's baseline is a sequential quicksort of the same numbers
# (QSORT_N and QSORT_PROCS set its size and processors). gpuc bench then
# repeats the GPU run BENCH_RUNS times (5) for its median and interval.
set -uo pipefail
dir=${1:?usage: bench-fork.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
echo "bench-fork: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for p in sieve matmul quicksort; do nvcc -O3 -arch="$arch" -o "fork-$p" "fork-$p.cu" & done
nvcc -O3 -arch="$arch" -o matmul_naive matmul_naive.cu &
for p in sieve matmul quicksort; do gcc -O2 -o "${p}_seq" "$p.c" & done
wait

# ms FILE: the first "X ms" figure in FILE.
ms() { grep -o '[0-9.]* ms' "$1" | head -1 | cut -d' ' -f1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }
# wall CMD...: runs CMD and prints its wall time in ms on fd 3.
wall() {
  local t0 t1
  t0=$(date +%s%N)
  "$@"
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000 ))" | awk '{ printf "%.3f", $1 / 1000 }' >&3
}
same() { if cmp -s "$1" "$2"; then echo "same output"; else echo "OUTPUTS DIFFER"; diff "$1" "$2" | head -5; fi; }

bench() {
  local name=$1 big=$2 small=$3
  echo "== $name: $big"
  ./"fork-$name" $big --time > gpu.out 2> gpu.err
  ./"${name}_seq" $big > seq.out 2> seq.err
  local g s
  g=$(ms gpu.err) s=$(ms seq.err)
  echo "gpu $g ms; sequential C -O2 $s ms: $(ratio "$s" "$g")x; $(same gpu.out seq.out)"
  grep launches gpu.err
  # Repeated runs of the same program, built by gpuc bench with nvcc:
  # the device time's median, extremes and 95% interval.
  GPUC_CACHE="$PWD/cache" ./gpuc bench --backend=nvcc --arch="$arch" --checks="${GPUC_CHECKS:-on}" --metric=device \
    --runs="${BENCH_RUNS:-5}" --set "$big" "$name.fork" | sed 's/^/  /'
  if [ "$name" = matmul ]; then
    ./matmul_naive $big > naive.out 2> naive.err
    local n
    n=$(ms naive.err)
    echo "hand-written naive CUDA $n ms: gpuc runs at $(ratio "$n" "$g")x its speed; $(same gpu.out naive.out)"
  fi
  echo "-- $name against the interpreter: $small"
  local i
  i=$( { wall ./gpuc run "$name.fork" $small > interp.out; } 3>&1 )
  ./"fork-$name" $small --time > gpu.out 2> gpu.err
  g=$(ms gpu.err)
  echo "gpu $g ms; interpreter $i ms: $(ratio "$i" "$g")x; $(same gpu.out interp.out)"
}

bench sieve "N=100000000 PROCS=${SIEVE_PROCS:-131072}" "N=1000000 PROCS=4096"
bench matmul "N=2048" "N=128"
bench quicksort "N=${QSORT_N:-16777216} P=${QSORT_PROCS:-65536}" "N=262144 P=1024"
