#!/usr/bin/env bash
# Issue 19's twelfth-wave turns (docs/BENCHMARKS.md, "branch world12"):
# ONE call of at most 5 minutes on nvidia-h100-x4 (H100 or H200), in a
# folder that `make multigpu-artifacts BENCH_DIR=...` wrote here:
#
#   ./bench-multigpu-w12.sh 2>&1 | tee $OUT/mg-w12.txt
#
# bench-multigpu.sh with MULTIGPU_ONLY=124: the probes of sections 1 and
# 2 (R=2000, G=132: the world barrier inside a cooperative kernel, target
# 10 us; a host iteration with the stream barrier and reduction, target
# 30 us), then section 4: today's tree merge sort at depth 23 (the
# baseline), the world program at 23 on 1 (its one-device program, and
# the world's own kernels), 2 and 4 (strong), 24 on 2 and 25 on 4 (weak
# and capacity), WORLDSTEPS=2: nvcc in parallel, 4 TRS programs. (At
# 05:22 it also built tms23-w-apart, the one-device program built apart
# from an -rdc world; world programs are built whole since branch
# nordc13: Note [A world built whole] in backends/cuda/world.go.)
#
#   ./bench-multigpu-w12.sh tt30   # the first turn (04:43): on GPUs of
#                                  # more than 100 GB the transformation
#                                  # tree at 30 on 2 in place of 25 on 4
here=$(cd "$(dirname "$0")" && pwd)
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
tt=0 w25=1
if [ "${1:-}" = tt30 ]; then
  mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | sort -n | head -1)
  [ "${mib:-0}" -gt 102400 ] && tt=1 w25=0
elif [ -n "${1:-}" ]; then
  echo "usage: bench-multigpu-w12.sh [tt30]" >&2
  exit 2
fi
echo "bench-multigpu-w12: $([ "$tt" = 1 ] && echo "the transformation tree at 30 on 2 in place of weak on 4" || echo "weak and capacity at 24 on 2 and 25 on 4")"
MULTIGPU_ONLY=124 MULTIGPU_R=${MULTIGPU_R:-2000} MULTIGPU_G=${MULTIGPU_G:-132} MULTIGPU_AB=0 MULTIGPU_SHARE=0 \
  MULTIGPU_TT=${MULTIGPU_TT:-$tt} MULTIGPU_25=${MULTIGPU_25:-$w25} \
  MULTIGPU_STEPS=${MULTIGPU_STEPS:-2} MULTIGPU_TIMEOUT=${MULTIGPU_TIMEOUT:-60} exec "$here/bench-multigpu.sh" "$here"
