#!/usr/bin/env bash
# Streamed input (issue 18, Note [Streamed input] in the CUDA backend's
# prelude.cuh), before and after, on the GPU machine (nvcc, gcc, a GPU):
#
#   scripts/chr-input-artifacts.sh DIR   # here: before/ and after/ programs
#   DIR/bench-chr-input.sh DIR           # there, one call, about 2 minutes
#
# For min over 10^8, gcd and sum over 10^6 and Floyd-Warshall 1024
# (MIN_N, GCD_N, SUM_N, FW_N), at PROCS=65536 and 2^20, each program of
# before/ (main's gpuc) and after/ (this branch's) runs REPS times,
# alternately, reading the same store files. Each run prints --time's
# whole run, kernels, the share outside kernels (target: under 20%), the
# time before the first kernel and after the last, the input files' line
# (reading before the clock; after/ copies to the device while reading)
# and the process's wall clock, which counts everything: the like-for-like
# figure between the two, since before/ copies its input inside the clock
# and after/ before it. Every after/ run must print the bytes of before/.
# For min's file, input_probe (scripts/bench/input_probe.cu) times four
# ways of getting it onto the device: a pinned block, the staged reading
# the programs now do, and cudaHostRegister of its mapping, whole and in
# pieces.
set -uo pipefail
dir=${1:?usage: bench-chr-input.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
reps=${REPS:-2}
min_n=${MIN_N:-100000000}
gcd_n=${GCD_N:-1000000}
sum_n=${SUM_N:-1000000}
fw_n=${FW_N:-1024}
echo "bench-chr-input: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs; $(cat COMMITS)"
for side in before after; do
  for p in fw min gcd sum; do nvcc -O3 -arch="$arch" -o "$side/chr-$p" "$side/chr-$p.cu" & done
done
gcc -O2 -o chr_gen chr_gen.c &
nvcc -O3 -arch="$arch" -o input_probe input_probe.cu &
wait
for side in before after; do
  for p in fw min gcd sum; do [ -x "$side/chr-$p" ] || { echo "nvcc failed: $side/chr-$p"; exit 1; }; done
done
mkdir -p data
# run SIDE NAME ARGS...: one run, its figures on one line.
run() {
  local side=$1 name=$2
  shift 2
  local t0 t1
  t0=$(date +%s%N)
  "./$side/chr-$name" "$@" --time > "$side.out" 2> "$side.err" || { echo "$side/chr-$name failed:"; cat "$side.err"; }
  t1=$(date +%s%N)
  local line total input
  total=$(grep -o 'device time [0-9.]* ms' "$side.err" | awk '{ print $3 }')
  line=$(grep -h 'launches (' "$side.err" | head -1 |
    sed -E 's/^gpuc: ([0-9]+) launches.*kernels ([0-9.]+) ms, the rest [0-9.]+ ms \(([0-9.]+)%\): ([0-9.]+) ms before the first kernel, ([-0-9.]+) ms between kernels, ([0-9.]+) ms after the last/kernels \2 ms, outside \3%: before first \4 ms, between \5 ms, after last \6 ms (\1 launches)/')
  input=$(grep -h '^gpuc: input files' "$side.err" | sed -E 's/^gpuc: input files: ([0-9]+), ([0-9.]+) MB read in ([0-9.]+) ms.*and ([0-9.]+) ms allocating.*/input \2 MB read in \3 ms + \4 ms allocating/')
  printf '  %-6s whole run %s ms, %s; %s; process %d ms\n' "$side" "$total" "$line" "$input" $(((t1 - t0) / 1000000))
}
# bench NAME ARGS...: before and after, both region sizes, REPS times.
bench() {
  local name=$1 procs r
  shift
  for procs in 65536 1048576; do
    echo " PROCS=$procs"
    for r in $(seq "$reps"); do
      run before "$name" "$@" PROCS="$procs"
      run after "$name" "$@" PROCS="$procs"
      cmp -s before.out after.out && echo "  same output" || { echo "  OUTPUTS DIFFER"; diff before.out after.out | head -5; }
    done
  done
}
store() {
  local b=$1 a
  shift
  echo -n "${b}_top=@data/${b}_top.bin"
  for a in "$@"; do echo -n " ${b}_a$a=@data/${b}_a$a.bin"; done
}
for w in "min $min_n" "gcd $gcd_n" "sum $sum_n"; do
  set -- $w
  echo "== $1 over $2 numbers"
  m=$(./chr_gen "$1" "$2" data)
  rm -f data/"${1}"1_st.bin data/"${1}"1_born.bin
  if [ "$1" = min ]; then
    # Four ways of getting the 800 MB file onto the device (input_probe.cu).
    ./input_probe data/min1_a0.bin 3 || echo "input_probe failed"
  fi
  bench "$1" CAP_"${1}"1="$m" $(store "${1}1" 0)
  rm -f data/"${1}"1_*
done
echo "== Floyd-Warshall, complete graph of $fw_n nodes"
m=$(./chr_gen fw "$fw_n" data)
bench fw CAP_edge3="$m" $(store edge3 0 1 2)
rm -rf data
