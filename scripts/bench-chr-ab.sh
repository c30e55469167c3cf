#!/usr/bin/env bash
# bench-chr-ab.sh DIR: issue 18's two CHR targets before and after a
# change, on the GPU machine (nvcc and a GPU; no Go). DIR comes from
# scripts/chr-ab-artifacts.sh (make chr-ab-artifacts). It builds fw, gcd
# and sum as compiled before and after (chr-NAME-before.cu, chr-NAME.cu)
# and scripts/bench/chr_fw.cu, all in parallel, then prints:
#   - Floyd-Warshall of FW_N nodes (default 1024): the hand-written CUDA
#     and each build at PROCS=65536 and BIG_PROCS (default 2^20), RUNS
#     times each (default 3): the device time (--time: first copy in to
#     the end of the program), the device time to the last copy out of
#     text (where the build prints it: the hand-written program's measure,
#     Note [A ring as deep as the text]), kernels, and their ratios to the
#     hand-written best (target: within 3x), and the process wall clock;
#   - gcd and sum over N (default 10^6) at both PROCS: the share outside
#     kernels (target: under 20%), launches, before/between/after.
# The after build runs twice: as built (where a region's grid does not fit,
# its strided cooperative kernel, Note [Strided cooperative kernels]) and
# with GPUC_STRIDE=0 (the relaunches, as before). Every output is compared
# with the hand-written CUDA's (fw) or with the first run's, the before
# build's (gcd, sum). One call takes about 2-3 minutes, most of it nvcc.
# GPU=0 runs nothing but the builds (for a check of the script with a fake
# nvcc).
set -uo pipefail
dir=${1:?usage: bench-chr-ab.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
n=${FW_N:-1024}
runs=${RUNS:-3}
big=${BIG_PROCS:-1048576}
rn=${N:-1000000}
echo "bench-chr-ab: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -1)"
for w in fw gcd sum; do
  for s in -before ""; do nvcc -O3 -arch="$arch" -o "chr-$w$s" "chr-$w$s.cu" & done
done
nvcc -O3 -arch="$arch" -o chr_fw_cuda chr_fw.cu &
gcc -O2 -o chr_gen chr_gen.c &
wait
for p in chr-fw-before chr-fw chr-gcd-before chr-gcd chr-sum-before chr-sum chr_fw_cuda chr_gen; do
  [ -x "$p" ] || { echo "build of $p failed"; exit 1; }
done
[ "${GPU:-1}" = 1 ] || { echo "GPU=0: built, nothing run"; exit 0; }
mkdir -p data
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
least() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == "") print a; else print (a == "" || b < a) ? b : a }'; }
# store BASE ARGS...: the NAME=@FILE arguments of a store read from data/.
store() {
  local b=$1 a
  shift
  echo -n "${b}_top=@data/${b}_top.bin"
  for a in "$@"; do echo -n " ${b}_a$a=@data/${b}_a$a.bin"; done
}
# run PROG ARGS...: one run with --time; sets t (device time), c (to the
# last copy out of text, or empty), k (kernels), rest (share outside
# kernels), wall (process ms), prof (the launches line).
# STRIDE=0 in the environment of run runs the program with GPUC_STRIDE=0.
run() {
  local t0 t1
  t0=$(date +%s%N)
  # STRIDE 1: the program's own choice (GPUC_STRIDE unset); 0: relaunches.
  local st=${STRIDE:-1}
  [ "$st" = 1 ] && st=
  GPUC_STRIDE=$st ./"$@" --time > gpu.out 2> gpu.err || { echo "$1 failed:"; cat gpu.err; }
  t1=$(date +%s%N)
  wall=$(((t1 - t0) / 1000000))
  t=$(grep -o 'device time [0-9.]* ms' gpu.err | head -1 | awk '{ print $3 }')
  c=$(grep -o 'last copy out of text [0-9.]* ms' gpu.err | awk '{ print $6 }')
  k=$(grep -o 'kernels [0-9.]* ms' gpu.err | awk '{ print $2 }')
  rest=$(grep -o 'the rest [0-9.]* ms ([0-9.]*%)' gpu.err | grep -o '[0-9.]*%')
  prof=$(grep -h 'launches' gpu.err | head -1 | sed 's/^gpuc: //')
  nl=$(echo "$prof" | grep -o '^[0-9]* launches' | cut -d' ' -f1)
}
# variants W: the builds of workload W to run, as PROG:STRIDE.
# STRIDES="8 64" adds runs of the new build with GPUC_STRIDE at those
# values (Note [Strided cooperative kernels]: the most processors a thread
# runs of a piece before the relaunches are preferred).
variants() {
  echo "chr-$1-before:1 chr-$1:1 chr-$1:0"
  for s in ${STRIDES:-}; do echo "chr-$1:$s"; done
}
label() { if [ "${1#*:}" != 1 ]; then echo "${1%:*} GPUC_STRIDE=${1#*:}"; else echo "${1%:*}"; fi; }

m=$(./chr_gen fw "$n" data)
fwargs="CAP_edge3=$m $(store edge3 0 1 2)"
echo "== Floyd-Warshall, complete graph of $n nodes ($m edges)"
hand=
for r in $(seq "$runs"); do
  t0=$(date +%s%N)
  ./chr_fw_cuda "$n" > cuda.out 2> cuda.err || { echo "chr_fw_cuda failed"; cat cuda.err; }
  t1=$(date +%s%N)
  h=$(grep -o '[0-9.]* ms' cuda.err | head -1 | cut -d' ' -f1)
  echo "hand-written CUDA, run $r: $h ms; whole process $(((t1 - t0) / 1000000)) ms"
  hand=$(least "$hand" "$h")
done
for v in $(variants fw); do
  p=${v%:*} lab=$(label "$v")
  for procs in 65536 "$big"; do
    bt= bc= bk=
    for r in $(seq "$runs"); do
      # shellcheck disable=SC2086
      STRIDE=${v#*:} run "$p" $fwargs PROCS="$procs"
      if cmp -s gpu.out cuda.out; then same="same output"; else same="OUTPUT DIFFERS from the hand-written CUDA's"; fi
      echo "$lab PROCS=$procs, run $r: device time $t ms ($(ratio "$t" "$hand")x), to the last copy out ${c:-n/a} ms ($(ratio "$c" "$hand")x), kernels $k ms ($(ratio "$k" "$hand")x), outside kernels $rest; process $wall ms; $same"
      echo "  $prof"
      bt=$(least "$bt" "$t") bc=$(least "$bc" "$c") bk=$(least "$bk" "$k")
    done
    echo "  $lab PROCS=$procs, best of $runs against the hand-written best $hand ms: device time $bt ms ($(ratio "$bt" "$hand")x), to the last copy out ${bc:-n/a} ms ($(ratio "$bc" "$hand")x), kernels $bk ms ($(ratio "$bk" "$hand")x) (target: within 3x)"
  done
done

for w in gcd sum; do
  m=$(./chr_gen "$w" "$rn" data)
  echo "== $w over $rn numbers"
  for v in $(variants "$w"); do
    p=${v%:*} lab=$(label "$v")
    for procs in 65536 "$big"; do
      bt= bk= br= bw=
      for r in $(seq "$runs"); do
        # shellcheck disable=SC2046
        STRIDE=${v#*:} run "$p" CAP_${w}1="$m" $(store "${w}1" 0) PROCS="$procs"
        [ -f "$w-first.out" ] || cp gpu.out "$w-first.out"
        if cmp -s gpu.out "$w-first.out"; then same="same output"; else same="OUTPUT DIFFERS from the first run's"; fi
        echo "$lab PROCS=$procs, run $r: device time $t ms, kernels $k ms, outside kernels $rest (target: under 20%), $nl launches; process $wall ms; $same"
        echo "  $prof"
        bt=$(least "$bt" "$t") bk=$(least "$bk" "$k") br=$(least "$br" "${rest%\%}") bw=$(least "$bw" "$wall")
      done
      echo "  $w $lab PROCS=$procs, best of $runs: whole run (device time) $bt ms, kernels $bk ms, outside kernels $br% (target: under 20%), $nl launches, process $bw ms"
    done
  done
done
rm -rf data
