#!/usr/bin/env bash
# Issue 19's tenth-wave turn (docs/BENCHMARKS.md, "branch world7"): ONE
# call of at most 5 minutes on nvidia-h100-x4, in a folder that
# `make multigpu-artifacts BENCH_DIR=...` wrote here:
#
#   NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 ./bench-multigpu-w10.sh
#
# bench-multigpu.sh with MULTIGPU_ONLY=124: the probes of sections 1 and
# 2 (the world barrier inside a cooperative kernel, target 10 us; a host
# iteration with the stream barrier and reduction, target 30 us; R=2000,
# G=132 only, as they build in seconds) and section 4 with 4 TRS
# programs built in parallel: today's tree merge sort at depth 23 (the
# baseline), the world program at 23 (strong on 1, 2, 4), 24 (weak on 2)
# and 25 (weak on 4), WORLDSTEPS=2, the world's summary at its default
# SUMSTEPS=16 (Note [A world's summary decides on the device] in
# frontends/trs). Then the strong runs on 2 and 4 once more with
# SUMSTEPS=1 (a host decision a round, as before the wave, but one word
# read a decision): against section 4's strong runs, what the summary's
# decisions on the device gained. 25 runs in all (a dry run with a stub
# nvcc: 27 before the A/B lost its default runs).
# The transformation tree at depth 30 is not built (a fifth program), and
# the remote share is the interpreter's (docs/BENCHMARKS.md, world7), not
# run there (MULTIGPU_SHARE=0).
#
#   ./bench-multigpu-w10.sh r128   # the same, with tms23-w-r128 in place of tms25-w
#
# r128: the world program built with -maxrregcount=128 (two blocks of
# 256 an SM, as today's kernels; the world's main_coop3 took 231
# registers at 01:22, one block an SM), run on 1 (its one-device program
# and the world's kernels), 2 and 4, in place of weak and capacity at 25
# on 4 (met at 01:22: 0.849, PASS), still 4 programs.
here=$(cd "$(dirname "$0")" && pwd)
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
if [ "${1:-}" = r128 ]; then
  export MULTIGPU_R128=1 MULTIGPU_25=0
elif [ -n "${1:-}" ]; then
  echo "usage: bench-multigpu-w10.sh [r128]" >&2
  exit 2
fi
MULTIGPU_ONLY=124 MULTIGPU_R=${MULTIGPU_R:-2000} MULTIGPU_G=${MULTIGPU_G:-132} MULTIGPU_AB=0 MULTIGPU_TT=0 MULTIGPU_SHARE=0 \
  MULTIGPU_STEPS=${MULTIGPU_STEPS:-2} MULTIGPU_TIMEOUT=${MULTIGPU_TIMEOUT:-60} "$here/bench-multigpu.sh" "$here"
rc=$?
cd "$here" || exit 1
[ -x mg-tms23-w ] || exit "$rc"
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
cap=${MULTIGPU_CAP:-800000000}
echo "== w10: the world's summary with SUMSTEPS=1 (section 4's strong runs: the default, 16), depth 23, WORLDSTEPS=${MULTIGPU_STEPS:-2}"
for k in 2 4; do
  [ "$k" -le "$gpus" ] || continue
  for ss in 1; do
    if ! timeout "${MULTIGPU_TIMEOUT:-60}" ./mg-tms23-w DEVICES="$k" CAPACITY=$((cap / k)) WORLDSTEPS="${MULTIGPU_STEPS:-2}" SUMSTEPS="$ss" --time > w10.out 2> w10.err; then
      echo "FAILED: mg-tms23-w DEVICES=$k SUMSTEPS=$ss"
      tail -3 w10.err
      continue
    fi
    t=$(grep -o 'device time [0-9.]* ms' w10.err | awk '{ print $3 }')
    echo "strong on $k, SUMSTEPS=$ss: $t ms; $(head -1 w10.out)"
    grep -E '^gpuc: ([0-9]+ launches|world:)' w10.err | sed 's/^gpuc: /    /'
  done
done
exit "$rc"
