#!/usr/bin/env bash
# Issue 19's ninth-wave turn (docs/BENCHMARKS.md, "branch world5"): one
# call of at most 5 minutes on nvidia-h100-x2, in a folder that
# `make multigpu-artifacts BENCH_DIR=...` wrote here:
#
#   ./bench-multigpu-w9.sh      # 2 GPUs: 5 nvcc builds in parallel, 15 runs
#   ./bench-multigpu-w9.sh 4    # nvidia-h100-x4: depth 25 on 4 too, 4 builds
#
# On 2 GPUs: today's program at depth 23, the world's kernels on one GPU,
# the world of 2 at WORLDSTEPS 1 and 2 (strong) with the gap split, the
# GPUs swapped, the A/B builds wide (gpuc_dist's paths before this wave)
# and ool (the world's trs_step out of line), depth 24 on 2 (weak) with
# the fitted normal form's check. Every option is bench-multigpu.sh's.
#
#   ./bench-multigpu-w9.sh waits  # world6's turn, nvidia-h100-x2: 3 builds
#
# waits: today's program at depth 23, the world program at 23 and 24,
# all world programs with -DGPUC_WORLD_WAITS (Note [Which device waits]):
# the world on 1, strong on 2, the GPUs swapped, weak at 24 on 2, each
# with its devices' waits in the kernels' world barriers. WORLDSTEPS=1.
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-2}" = waits ]; then
  MULTIGPU_ONLY=4 MULTIGPU_AB=0 MULTIGPU_TT=0 MULTIGPU_WAITS=1 MULTIGPU_SWAP=1 MULTIGPU_STEPS=1 MULTIGPU_TIMEOUT=60 exec "$here/bench-multigpu.sh" "$here"
fi
if [ "${1:-2}" = 4 ]; then
  MULTIGPU_ONLY=4 MULTIGPU_AB=0 MULTIGPU_TT=0 MULTIGPU_STEPS=2 MULTIGPU_TIMEOUT=60 exec "$here/bench-multigpu.sh" "$here"
fi
MULTIGPU_ONLY=4 MULTIGPU_AB=0 MULTIGPU_TT=0 MULTIGPU_WIDE=1 MULTIGPU_OOL=1 MULTIGPU_SWAP=1 MULTIGPU_TIMEOUT=60 exec "$here/bench-multigpu.sh" "$here"
