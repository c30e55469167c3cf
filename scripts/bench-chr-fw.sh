#!/usr/bin/env bash
# bench-chr-fw.sh DIR: Floyd-Warshall on the GPU machine (nvcc and a GPU;
# no Go), for issue 18's target "device time within 3x of the
# hand-written CUDA". DIR comes from scripts/chr-fw-artifacts.sh. It
# builds gpuc's fw before and after a change (chr-fw-before.cu,
# chr-fw.cu) and scripts/bench/chr_fw.cu in parallel (about 15 s), then
# for each size in FW_SIZES (default 1024) runs the hand-written CUDA and
# each gpuc build at PROCS=65536 and 2^20, RUNS times each (default 3),
# and prints every run's --time figures: whole device time (first copy
# in to last copy out), kernels, and the fixpoint (the device time up to
# the end of the last kernel, as bench-chr.sh computes it), with their
# ratios to the best hand-written time, and each process's wall clock
# from start to exit, as a user waits for it. Every output must be the same.
# One call takes about 1 minute at 1024 nodes.
set -uo pipefail
dir=${1:?usage: bench-chr-fw.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
sizes=${FW_SIZES:-1024}
runs=${RUNS:-3}
echo "bench-chr-fw: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
for p in chr-fw-before chr-fw; do nvcc -O3 -arch="$arch" -o "$p" "$p.cu" & done
nvcc -O3 -arch="$arch" -o chr_fw_cuda chr_fw.cu &
gcc -O2 -o chr_gen chr_gen.c &
wait
for p in chr-fw-before chr-fw chr_fw_cuda chr_gen; do [ -x "$p" ] || { echo "build of $p failed"; exit 1; }; done
mkdir -p data
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
least() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
for n in $sizes; do
  m=$(./chr_gen fw "$n" data)
  args="CAP_edge3=$m edge3_top=@data/edge3_top.bin edge3_a0=@data/edge3_a0.bin edge3_a1=@data/edge3_a1.bin edge3_a2=@data/edge3_a2.bin"
  echo "== Floyd-Warshall, complete graph of $n nodes ($m edges)"
  hand=
  for r in $(seq "$runs"); do
    t0=$(date +%s%N)
    ./chr_fw_cuda "$n" > cuda.out 2> cuda.err || { echo "chr_fw_cuda failed"; cat cuda.err; }
    t1=$(date +%s%N)
    c=$(grep -o '[0-9.]* ms' cuda.err | head -1 | cut -d' ' -f1)
    echo "hand-written CUDA, run $r: $c ms; whole process $(( (t1 - t0) / 1000000 )) ms"
    hand=$(least "$hand" "$c")
  done
  for p in chr-fw-before chr-fw; do
    for procs in 65536 1048576; do
      bw= bk= bf=
      for r in $(seq "$runs"); do
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        ./"$p" $args PROCS="$procs" --time > gpu.out 2> gpu.err || { echo "$p failed:"; cat gpu.err; }
        t1=$(date +%s%N)
        t=$(grep -o '[0-9.]* ms' gpu.err | head -1 | cut -d' ' -f1)
        k=$(grep -o 'kernels [0-9.]* ms' gpu.err | awk '{ print $2 }')
        after=$(grep -o '[0-9.-]* ms after the last' gpu.err | awk '{ print $1 }')
        f=$(awk -v t="$t" -v a="$after" 'BEGIN { printf "%.3f", t - a }')
        steps=$(grep -h '^% steps' gpu.err | sed 's/^% //')
        if cmp -s gpu.out cuda.out; then same="same output"; else same="OUTPUT DIFFERS from the hand-written CUDA's"; fi
        echo "$p PROCS=$procs, run $r: device time $t ms ($(ratio "$t" "$hand")x), kernels $k ms ($(ratio "$k" "$hand")x), fixpoint $f ms ($(ratio "$f" "$hand")x); whole process $(( (t1 - t0) / 1000000 )) ms; $steps; $same"
        grep -h 'launches' gpu.err | head -1 | sed 's/^gpuc: /  /'
        bw=$(least "$bw" "$t") bk=$(least "$bk" "$k") bf=$(least "$bf" "$f")
      done
      echo "  $p PROCS=$procs, best of $runs: device time $bw ms, kernels $bk ms, fixpoint $bf ms; against the hand-written CUDA's best $hand ms: $(ratio "$bw" "$hand")x, $(ratio "$bk" "$hand")x, $(ratio "$bf" "$hand")x (target: within 3x)"
    done
  done
done
rm -rf data
