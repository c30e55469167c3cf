#!/usr/bin/env bash
# REC benchmarks on the GPU machine (needs nvcc and a GPU, not Go):
# gpuc's hybrid and GPU-only programs against its CPU rewriter and
# against Maude, the peer, all in one run on one machine (issue 17).
#
#   make bench-artifacts           # here: gpuc, the REC corpus, a Maude bundle, the hybrid halves
#   scripts/bench-rec.sh DIR       # there
#
# The workloads are the benchmarks of the Rewrite Engines Competition
# (../shared/corpus/trs/rec/REC, which make bench-artifacts copies where
# the checkout has it): every one that Maude reduces within
# MAUDE_TIMEOUT (120 s: issue 17's 300 s do not fit one call), not a
# selection; those it does not finish, and those with several EVAL terms
# (gpuc evaluates one), are listed as skipped. The whole run ends within REC_DEADLINE_S (270 s) of its
# start, so that it fits in one call of five minutes of the GPU machine
# (make rec-bench-artifacts: 2026-11-26, 58 programs, the whole list):
# every step's bound is cut to the time left, a step that cannot start
# in time is listed as skipped, and the table is printed. The run has
# three phases:
#
# 1. Builds, on every core at once: the hybrid program linked by the
#    host compiler (HYB_CXX, g++, -O3 -Wl,--as-needed; HYB_LINK replaces
#    the whole; until wave 9, and where that fails, nvcc -O3) from hyb-NAME.cpp, gzipped by
#    make rec-bench-artifacts, and .o (scripts/hybrid-artifacts.sh);
#    where DIR holds hyb-NAME.base.cpp.gz and .o (scripts/rec-base-artifacts.sh),
#    hyb-NAME.base as before, with nvcc; and, with REC_GPU=cu, each .rec
#    compiled with the static gpuc (--print=summary --stats) and nvcc, as
#    the GPU-only program.
# 2. Maude's reduce (gpuc maude --timing, which also reads its normal
#    form back) and the CPU rewriter (gpuc rewrite, one thread) of every
#    benchmark, REC_CPU_JOBS at once (every core but REC_FG_CORES) in the
#    background, each bounded (MAUDE_TIMEOUT, 120 s; RUN_TIMEOUT, 60 s,
#    for the rewriter), on cores of their own where taskset is present.
#    Between the two, where Maude took WARM_MIN_MS (20) or more, a first
#    run of the hybrid program on the GPU for one iteration (HYBRID=0,
#    MAXITER=1 as an argument: until wave 8 it was passed in the
#    environment, which the program does not read, so that each warm-up
#    was a whole GPU-only run: 554 s for 58 programs four at a time on an
#    H100 machine, 2026-11-26), which leaves its PTX compiled in the
#    driver's cache; a shorter run rarely loads the driver (Note [Context
#    on demand] in backends/cuda/hybrid_cuda.h), the context's start
#    alone being 300 to 450 ms.
# 3. Meanwhile, on the first REC_FG_CORES cores (2), one benchmark after
#    another in the order that Maude finishes them: the hybrid program
#    (Note [Hybrid migration] in backends/cuda/hybrid.h), bounded by
#    three times Maude's time plus 30 s; then, once the CPU rewriter is
#    done, the GPU-only program (GPU_TIMEOUT, 20 s) of the warmed ones
#    (the others are listed as skipped): the hybrid program
#    with HYBRID=0 (the same kernels, from LLVM's PTX), or nvcc's
#    program with REC_GPU=cu (the figures of earlier runs); unless REC_GPU=0,
#    or the CPU rewriter shows a long sequential run: its critical
#    path times GPU_STEP_US (2.5 us, the GPU's latency per dependent
#    rewrite, docs/BENCHMARKS.md) over GPU_SEQ_S (5 s); those are
#    printed as skipped, with the estimate. The hybrid program runs with
#    CAPACITY=HYB_CAPACITY (400000000, which fits an 80 GB device; its own
#    fit is to the host's memory, which the device may not match), or with
#    REC_GPU=cu the CAPACITY that the last GPU-only program fitted.
# 4. Once phase 2 is over: Note [Short runs on a quiet machine].
#
# Note [Short runs on a quiet machine]
# A hybrid run of a few milliseconds timed while phase 2's jobs run
# measures the machine's load, not the program: bubblesort10 took 9.0 ms
# in bench-rec's table (H100 machine, 2026-11-27 00:10) and 2.2 ms
# (median of 7) on the same machine without them, /bin/true 1.1 ms
# (lead's probe, /work/gpu-notes/rec-probe-0145.txt; the dynamic loader
# is 0.1 ms of it). So where Maude (real) took under QUIET_MS (300 ms),
# and the hybrid's busy run under three times that, both run again once
# the background jobs are over, one after the other QUIET_REPEAT times
# (5) on the same cores, and the target reads these medians; the table keeps the busy
# figures beside them. Where hyb-NAME.base was built, it runs after
# each hybrid run, for the quiet column "before".
#
# It checks that the normal forms (size and hash) agree and that the
# GPU programs and the CPU rewriter count the same rewrites, and prints
# a table: Maude's reduce (its own report, CPU and real ms; Maude counts
# its rewrites its own way, so only times are compared with it), the
# hybrid program's whole run (wall clock from process start), its
# rewriting (--time's device time) and its hybrid points, the CPU
# rewriter's own clock, the GPU-only program's whole run and kernels, and
# the hybrid's whole run against Maude's real time: issue 17's target is
# no slower, or within 20 ms where Maude takes under 20 ms (MISS marks
# the others). REC_ONLY="a b" runs only those benchmarks; GPUC_ARCH sets
# the GPU architecture (sm_90); where Maude takes under REPEAT_MS
# (1000 ms), both Maude and the hybrid program run REPEAT times (3) and
# the medians count; GPUC_CHECKS=off compiles without checks
# of indices and divisors (docs/BENCHMARKS.md, the cost of checks).
# Maude runs from DIR/maude (scripts/maude-bundle.sh), with an unlimited
# stack, as it asks for deep terms. REC_HYB_B="NAME=VALUE ..." runs each
# hybrid program a second time right after the first, with those
# settings in its environment (HYBRID_RULE=size: the rule by size, Note
# [Migration by measured time] in backends/cuda/hybrid_rule.h), and
# prints a second table of the two (scripts/bench-rec-rule.sh).
set -uo pipefail
dir=${1:?usage: bench-rec.sh DIR}
cd "$dir" || exit 1
# Clocks read without a fork (bash 5's EPOCHREALTIME, in microseconds):
# date and awk around a run cost 1.8 ms on the H100 machine (2026-11-26,
# devcarry/probe9), which counted against the program under test.
now() { echo "${EPOCHREALTIME/./}000"; }
t_start=$(now)
deadline=$((t_start / 1000000000 + ${REC_DEADLINE_S:-270}))
# left: whole seconds until the deadline, 0 at least.
left() { local l=$((deadline - $(date +%s))); echo $((l > 0 ? l : 0)); }
# bound LIMIT [MARGIN]: LIMIT seconds, cut to the time left less MARGIN,
# 1 at least.
bound() { local l=$(($(left) - ${2:-0})); l=$((l < $1 ? l : $1)); echo $((l > 1 ? l : 1)); }
export deadline
export -f left bound
arch=${GPUC_ARCH:-sm_90}
gpuc=./gpuc
maude=./maude/maude
if [ ! -d rec/REC ]; then
  echo "bench-rec: no rec/REC here: make bench-artifacts copies it from ../shared/corpus/trs/rec, which this checkout lacks"
  exit 0
fi
[ -x "$maude" ] || { echo "bench-rec: no $maude (make bench-artifacts bundles the Debian package's Maude where it is installed)"; exit 1; }
cores=$(nproc)
fg=${REC_FG_CORES:-2}
[ "$cores" -gt "$fg" ] || fg=0
bgjobs=${REC_CPU_JOBS:-$((cores > fg ? cores - fg : 1))}
pin_fg=() pin_bg=()
if command -v taskset > /dev/null && [ "$fg" -gt 0 ]; then
  pin_fg=(taskset -c "0-$((fg - 1))")
  pin_bg=(taskset -c "$fg-$((cores - 1))")
fi
echo "bench-rec: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1), CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $cores cores ($fg for the GPU programs, $bgjobs jobs of Maude and the CPU rewriter), $("$maude" --version 2>&1 | head -1 | sed 's/^/Maude /')"

if [ -n "${REC_ONLY:-}" ]; then
  benches=($REC_ONLY)
else
  benches=($(cd rec/REC && ls -- *.rec | sed 's/\.rec$//'))
fi
mkdir -p rec-runs
ms_since() { local b=${EPOCHREALTIME/./}000; awk -v a="$1" -v b="$b" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
# median NUMBERS...: the middle one (the lower middle of an even count).
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g", a / b; else print "n/a" }'; }

# Phase 1: the builds. A benchmark that hybrid-artifacts.sh could not
# build (several EVAL terms) is skipped with its reason.
gpu_mode=${REC_GPU:-hyb}
# The hybrid program needs no CUDA library and, linked with --as-needed,
# no libstdc++ (Note [No C++ library at run time] in backends/cuda/cpu.h):
# the host compiler links it, with the toolkit's cuda.h where nvcc is.
cuda_inc=$(dirname "$(command -v nvcc)")/../include
hyb_link="${HYB_LINK:-${HYB_CXX:-g++} -O3 -Wl,--as-needed}"
[ -f "$cuda_inc/cuda.h" ] && [ -z "${HYB_LINK:-}" ] && hyb_link="$hyb_link -I$cuda_inc"
ok=()
for b in "${benches[@]}"; do
  if { [ -f "hyb-$b.cpp" ] || [ -f "hyb-$b.cpp.gz" ]; } && [ -f "hyb-$b.o" ]; then
    ok+=("$b")
  else
    echo "== $b: skipped: no hybrid program: $(head -1 "hyb-$b.err" 2> /dev/null)"
  fi
done
benches=("${ok[@]}")
{
  for b in "${benches[@]}"; do
    echo "{ [ -f hyb-$b.cpp ] || gunzip -k hyb-$b.cpp.gz; } && { $hyb_link -o hyb-$b hyb-$b.cpp hyb-$b.o -lpthread -ldl || nvcc -O3 -o hyb-$b hyb-$b.cpp hyb-$b.o -lpthread -ldl; }"
    # The programs of scripts/rec-base-artifacts.sh, linked as until wave 9.
    if [ -f "hyb-$b.base.cpp.gz" ] && [ -f "hyb-$b.base.o" ]; then
      echo "gunzip -kf hyb-$b.base.cpp.gz && nvcc -O3 -o hyb-$b.base hyb-$b.base.cpp hyb-$b.base.o -lpthread -ldl"
    fi
    if [ "$gpu_mode" = cu ]; then
      echo "$gpuc compile --checks=${GPUC_CHECKS:-on} rec/REC/$b.rec --print=summary --stats -o rec-$b.cu && nvcc -O3 -arch=$arch -o rec-$b rec-$b.cu"
    fi
  done
} | xargs -P "$cores" -I{} sh -c '{} || echo "bench-rec: failed: {}"'
echo "bench-rec: built in $(ms_since "$t_start") ms"

# Phase 2, in the background: Maude, the warm-up, then the CPU rewriter,
# of each benchmark; NAME.maude.done (Maude and the warm-up) and
# NAME.cpu.done say each is over, NAME.warm that the warm-up ran. The
# warm-up: HYBRID=0 waits for the device at the first hybrid point,
# MAXITER=1 stops after one iteration, a small CAPACITY leaves the
# device to the others. The driver's cache is made large enough for
# every program's compiled kernels.
export maude gpuc
export MAUDE_TIMEOUT=${MAUDE_TIMEOUT:-120} RUN_TIMEOUT=${RUN_TIMEOUT:-60} WARM_MIN_MS=${WARM_MIN_MS:-20}
export CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}
cpu_side() {
  local b=$1 f=rec/REC/$1.rec r=rec-runs/$1 m
  ulimit -s unlimited
  "$gpuc" maude --timing "$f" > "$r.maude.in"
  if [ "$(left)" -gt 30 ]; then
    bound "$MAUDE_TIMEOUT" 30 > "$r.maude.limit"
    timeout "$(cat "$r.maude.limit")" "$maude" -no-banner -batch "$r.maude.in" > "$r.maude.out" 2>&1
  else
    echo 0 > "$r.maude.limit"
    : > "$r.maude.out"
  fi
  m=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.maude.out" | head -1)
  # Under REPEAT_MS (1000 ms), Maude's reduce runs REPEAT times (3) and
  # the run with the median real time is the one reported, as for the
  # hybrid program below: a single run of a few milliseconds on a machine
  # busy with the other jobs varies by half.
  if [ -n "$m" ] && [ "$m" -lt "${REPEAT_MS:-1000}" ] && [ "$(left)" -gt 40 ]; then
    local k reals=("$m")
    for ((k = 1; k < ${REPEAT:-3}; k++)); do
      timeout "$(bound "$MAUDE_TIMEOUT" 30)" "$maude" -no-banner -batch "$r.maude.in" > "$r.maude.out.$k" 2>&1
      reals+=("$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.maude.out.$k" | head -1)")
    done
    m=$(median "${reals[@]}")
    for ((k = 1; k < ${REPEAT:-3}; k++)); do
      grep -q "ms cpu (${m}ms real)" "$r.maude.out.$k" 2> /dev/null && mv "$r.maude.out.$k" "$r.maude.out"
    done
    rm -f "$r.maude.out".[0-9]*
  fi
  if [ -n "$m" ] && [ "$m" -ge "$WARM_MIN_MS" ] && [ -x "hyb-$b" ] && [ "$(left)" -gt 40 ]; then
    HYBRID=0 timeout "$(bound 150 40)" ./"hyb-$b" CAPACITY=4000000 MAXITER=1 > /dev/null 2> "$r.warm.err"
    # One iteration leaves "no normal form within MAXITER iterations".
    { [ $? = 0 ] || grep -q 'within MAXITER' "$r.warm.err"; } && touch "$r.warm"
  fi
  touch "$r.maude.done"
  if [ -n "$m" ] && [ "$(left)" -gt 5 ]; then
    timeout "$(bound "$RUN_TIMEOUT" 5)" "$gpuc" rewrite "$f" --print=summary --stats --time > "$r.cpu.out" 2> "$r.cpu.err"
  fi
  touch "$r.cpu.done"
}
export -f cpu_side median
rm -f rec-runs/*.done rec-runs/*.warm rec-runs/*.limit
printf '%s\n' "${benches[@]}" | "${pin_bg[@]}" xargs -P "$bgjobs" -I{} bash -c 'cpu_side {}' &
bg=$!

# Phase 3, meanwhile: the GPU programs, one at a time, in the order that
# Maude finishes: the hybrid program once Maude is done (none where it
# did not finish), bounded by three times Maude's time and 30 s at least;
# the GPU-only program once the CPU rewriter is done too.
ulimit -s unlimited
cap=${HYB_CAPACITY:-400000000}
declare -A hyb_ms hybb_ms gpu_ms gpu_k skip_why
# finished NAME: Maude reduced NAME's term.
finished() { grep -q '^rewrites: [0-9]* in' "rec-runs/$1.maude.out" 2> /dev/null; }
hybrid_run() {
  local b=$1 r=rec-runs/$1 t0 s m
  hyb_ms[$b]=n/a
  [ -x "hyb-$b" ] && finished "$b" || return
  m=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.maude.out" | head -1)
  [ "$(left)" -gt 2 ] || { hyb_ms[$b]="skipped (deadline)"; return; }
  # Under REPEAT_MS, REPEAT runs (3) and the median whole run; the
  # outputs kept are the last run's.
  local n=1 k times=()
  [ "$m" -lt "${REPEAT_MS:-1000}" ] && n=${REPEAT:-3}
  for ((k = 0; k < n; k++)); do
    t0=$(now)
    "${pin_fg[@]}" timeout "$(bound "$((m * 3 / 1000 + 30))" 2)" ./"hyb-$b" CAPACITY="$cap" --time > "$r.hyb.out" 2> "$r.hyb.err"
    s=$?
    times+=("$(ms_since "$t0")")
    [ "$s" = 0 ] || break
  done
  hyb_ms[$b]=$(median "${times[@]}")
  [ "$s" = 0 ] || hyb_ms[$b]="failed (exit $s)"
  [ -n "${REC_HYB_B:-}" ] || return
  hybb_ms[$b]=n/a
  [ "$(left)" -gt 2 ] || { hybb_ms[$b]="skipped (deadline)"; return; }
  t0=$(now)
  env $REC_HYB_B "${pin_fg[@]}" timeout "$(bound "$((m * 3 / 1000 + 30))" 2)" ./"hyb-$b" CAPACITY="$cap" --time > "$r.hybb.out" 2> "$r.hybb.err"
  s=$?
  hybb_ms[$b]=$(ms_since "$t0")
  [ "$s" = 0 ] || hybb_ms[$b]="failed (exit $s)"
}
gpu_run() {
  local b=$1 r=rec-runs/$1 t0 s span est why="" k c
  span=$(awk '/^critical path:/ { print $3 }' "$r.cpu.err" 2> /dev/null)
  est=$(awk -v s="${span:-0}" -v us="${GPU_STEP_US:-2.5}" 'BEGIN { printf "%.1f", s * us / 1e6 }')
  [ "${REC_GPU:-1}" = 0 ] && why="REC_GPU=0"
  [ -z "$why" ] && ! finished "$b" && why="Maude did not finish"
  [ -z "$why" ] && [ "$gpu_mode" != cu ] && [ ! -f "$r.warm" ] && why="not warmed up: Maude under WARM_MIN_MS (${WARM_MIN_MS} ms), a failed warm-up, or no time left"
  [ -z "$why" ] && [ "$(left)" -le "${GPU_TIMEOUT:-20}" ] && why="deadline: $(left) s left"
  [ -z "$why" ] && awk -v e="$est" -v m="${GPU_SEQ_S:-5}" 'BEGIN { exit !(e > m) }' && why="critical path ${span} rewrites, about $est s on the GPU, over GPU_SEQ_S ${GPU_SEQ_S:-5}"
  skip_why[$b]=$why
  gpu_ms[$b]=skipped
  gpu_k[$b]=""
  [ -z "$why" ] || return
  t0=$(now)
  if [ "$gpu_mode" = cu ]; then
    "${pin_fg[@]}" timeout "${GPU_TIMEOUT:-20}" ./"rec-$b" --time > "$r.gpu.out" 2> "$r.gpu.err"
  else
    HYBRID=0 "${pin_fg[@]}" timeout "${GPU_TIMEOUT:-20}" ./"hyb-$b" CAPACITY="$cap" --time > "$r.gpu.out" 2> "$r.gpu.err"
  fi
  s=$?
  gpu_ms[$b]=$(ms_since "$t0")
  [ "$s" = 0 ] || gpu_ms[$b]="failed (exit $s)"
  k=$(grep -o ' main [0-9.]* ms' "$r.gpu.err" | awk '{ print $2 }')
  [ -n "$k" ] || k=$(grep -o 'kernels [0-9.]* ms' "$r.gpu.err" | awk '{ print $2 }')
  gpu_k[$b]=$k
  c=$(sed -n 's/^gpuc: CAPACITY=\([0-9]*\) fitted.*/\1/p' "$r.gpu.err" | head -1)
  [ -z "$c" ] || [ "$gpu_mode" != cu ] || cap=$c
}
wait_h=("${benches[@]}") wait_g=()
while [ ${#wait_h[@]} -gt 0 ] || [ ${#wait_g[@]} -gt 0 ]; do
  alive=1
  kill -0 "$bg" 2> /dev/null || alive=0
  more=() moved=0
  for b in "${wait_h[@]}"; do
    if [ -f "rec-runs/$b.maude.done" ] || [ $alive = 0 ]; then
      hybrid_run "$b"
      wait_g+=("$b")
      moved=1
    else
      more+=("$b")
    fi
  done
  wait_h=("${more[@]}")
  more=()
  # One GPU-only run a pass, where no hybrid ran: the hybrid runs, the
  # issue's target, come first within the deadline.
  for b in "${wait_g[@]}"; do
    if [ $moved = 0 ] && { [ -f "rec-runs/$b.cpu.done" ] || [ $alive = 0 ]; }; then
      gpu_run "$b"
      moved=1
    else
      more+=("$b")
    fi
  done
  wait_g=("${more[@]}")
  [ $moved = 1 ] || sleep 0.5
done
echo "bench-rec: GPU programs done at $(ms_since "$t_start") ms; waiting for Maude and the CPU rewriter"
wait "$bg"
echo "bench-rec: all done at $(ms_since "$t_start") ms"

# Phase 4, on a quiet machine: the short runs again, alternating with
# Maude's (Note [Short runs on a quiet machine]).
declare -A q_h q_m q_b
quiet_ms=${QUIET_MS:-300} quiet_n=${QUIET_REPEAT:-5}
for b in "${benches[@]}"; do
  r=rec-runs/$b
  m=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.maude.out" 2> /dev/null | head -1)
  h=${hyb_ms[$b]:-n/a}
  [ -n "$m" ] && [ "$m" -lt "$quiet_ms" ] && [ -x "hyb-$b" ] || continue
  awk -v h="$h" -v q="$quiet_ms" 'BEGIN { exit !(h + 0 > 0 && h < 3 * q) }' || continue
  [ "$(left)" -gt 10 ] || { echo "bench-rec: quiet phase: deadline, $b and the rest not run"; break; }
  hs=() ms=() bs=() bfail=0
  for ((k = 0; k < quiet_n; k++)); do
    "${pin_fg[@]}" timeout "$(bound 30 5)" "$maude" -no-banner -batch "$r.maude.in" > "$r.quiet.maude" 2>&1
    ms+=("$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.quiet.maude" | head -1)")
    t0=$(now)
    "${pin_fg[@]}" timeout "$(bound 30 5)" ./"hyb-$b" CAPACITY="$cap" --time > "$r.quiet.out" 2> "$r.quiet.err"
    s=$?
    hs+=("$(ms_since "$t0")")
    [ "$s" = 0 ] && [ "$(head -1 "$r.quiet.out")" = "$(head -1 "$r.hyb.out")" ] || { hs=(); break; }
    [ -x "hyb-$b.base" ] || continue
    t0=$(now)
    "${pin_fg[@]}" timeout "$(bound 30 5)" ./"hyb-$b.base" CAPACITY="$cap" --time > "$r.quiet.out" 2> "$r.quiet.err"
    s=$?
    bs+=("$(ms_since "$t0")")
    [ "$s" = 0 ] && [ "$(head -1 "$r.quiet.out")" = "$(head -1 "$r.hyb.out")" ] || bfail=1
  done
  [ ${#hs[@]} -gt 0 ] && [ -n "${ms[*]}" ] || { echo "== $b: quiet phase: a run failed or printed another normal form"; continue; }
  q_h[$b]=$(median "${hs[@]}")
  q_m[$b]=$(median ${ms[*]})
  q_b[$b]=""
  [ ${#bs[@]} = 0 ] || q_b[$b]=$(median "${bs[@]}")
  [ $bfail = 0 ] || q_b[$b]="failed or another normal form"
  echo "== $b: quiet: hybrid whole run ${hs[*]} ms (median ${q_h[$b]}), Maude real ${ms[*]} ms (median ${q_m[$b]})${bs[*]:+, before (hyb-$b.base) ${bs[*]} ms (median ${q_b[$b]})}"
done
echo "bench-rec: quiet phase done at $(ms_since "$t_start") ms"

tableb="| benchmark | Maude real ms | hybrid whole run ms | points (host, device, moves) | hybrid with ${REC_HYB_B:-} ms | its points | its rewriting ms | its / hybrid |"$'\n'"|---|---|---|---|---|---|---|---|"
table="| benchmark | Maude reduce ms, CPU (real) | hybrid whole run ms | quiet: Maude real ms | quiet: hybrid whole run ms | quiet: before ms | hybrid rewriting ms | hybrid points (host, device, moves) | CPU rewriter ms | GPU-only whole run ms | GPU-only kernels ms | Maude real / hybrid (quiet where run) | CPU rewriter / hybrid | target |"$'\n'"|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
skipped=() missed=()
for b in "${benches[@]}"; do
  r=rec-runs/$b
  f=rec/REC/$b.rec
  m_cpu=$(sed -n 's/^rewrites: [0-9]* in \([0-9]*\)ms cpu.*/\1/p' "$r.maude.out" | head -1)
  m_ms=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$r.maude.out" | head -1)
  if [ -z "$m_ms" ]; then
    if [ "$(cat "$r.maude.limit" 2> /dev/null)" = 0 ]; then
      echo "== $b: not run: 30 s or less were left before the deadline"
    else
      echo "== $b: Maude did not finish within $(cat "$r.maude.limit" 2> /dev/null) s; skipped"
    fi
    skipped+=("$b")
    continue
  fi
  m_sum=$("$gpuc" maude --result "$r.maude.out" --print=summary "$f" 2>&1 | head -1)
  c_ms=$(grep -o 'in [0-9.]* ms' "$r.cpu.err" 2> /dev/null | awk '{ print $2 }')
  c_rew=$(awk '/^rewrites:/ { print $2 }' "$r.cpu.err" 2> /dev/null)
  c_span=$(awk '/^critical path:/ { print $3 }' "$r.cpu.err" 2> /dev/null)
  h_rew=$(awk '/^rewrites:/ { print $2 }' "$r.hyb.err" 2> /dev/null)
  h_k=$(grep -o 'device time [0-9.]* ms' "$r.hyb.err" 2> /dev/null | awk '{ print $3 }')
  h_pts=$(sed -n 's/^gpuc: hybrid points \([0-9]*\) on the host, \([0-9]*\) on the device, \([0-9]*\) moves/\1, \2, \3/p' "$r.hyb.err" 2> /dev/null)
  h_on=$(grep '^iterations on the' "$r.hyb.err" 2> /dev/null)
  h_out=$(head -1 "$r.hyb.out" 2> /dev/null)
  same="same normal form as Maude"
  [ "$h_out" = "$m_sum" ] || same="HYBRID'S NORMAL FORM DIFFERS: '$h_out', Maude '$m_sum'"
  [ -z "$c_rew" ] || [ "$h_rew" = "$c_rew" ] || same="$same; REWRITES DIFFER (hybrid $h_rew, cpu $c_rew)"
  [ -z "$c_rew" ] || [ "$(head -1 "$r.cpu.out")" = "$m_sum" ] || same="$same; CPU REWRITER'S NORMAL FORM DIFFERS"
  if [ "${gpu_ms[$b]}" != skipped ]; then
    g_rew=$(awk '/^rewrites:/ { print $2 }' "$r.gpu.err")
    [ "$(head -1 "$r.gpu.out")" = "$m_sum" ] && [ "$g_rew" = "$h_rew" ] || same="$same; GPU-ONLY DIFFERS: '$(head -1 "$r.gpu.out")', $g_rew rewrites"
  fi
  h=${hyb_ms[$b]}
  # The target reads the quiet phase's medians where it ran.
  hq=$h mq=$m_ms quiet="busy"
  [ -z "${q_h[$b]:-}" ] || { hq=${q_h[$b]} mq=${q_m[$b]} quiet="quiet: ${q_h[$b]} against Maude ${q_m[$b]}"; }
  target=$(awk -v h="$hq" -v m="$mq" 'BEGIN { if (h + 0 <= 0) print "n/a"; else if (h <= m || (m < 20 && h <= m + 20)) print "met"; else print "MISS" }')
  [ "$target" = met ] || missed+=("$b")
  echo "== $b: Maude ${m_cpu} ms CPU (${m_ms} ms real); hybrid whole run $h ms, rewriting ${h_k:-?} ms, points ${h_pts:-?}, ${h_on:-}; CPU rewriter ${c_ms:-over $RUN_TIMEOUT s} ms, critical path ${c_span:-?} of ${c_rew:-?}; GPU-only ${gpu_ms[$b]} ${skip_why[$b]:+(${skip_why[$b]})} kernels ${gpu_k[$b]:-n/a} ms; $same; target $target ($quiet)"
  if [ -n "${REC_HYB_B:-}" ]; then
    b_pts=$(sed -n 's/^gpuc: hybrid points \([0-9]*\) on the host, \([0-9]*\) on the device, \([0-9]*\) moves/\1, \2, \3/p' "$r.hybb.err" 2> /dev/null)
    b_k=$(grep -o 'device time [0-9.]* ms' "$r.hybb.err" 2> /dev/null | awk '{ print $3 }')
    [ "$(head -1 "$r.hybb.out" 2> /dev/null)" = "$m_sum" ] || b_pts="$b_pts; NORMAL FORM DIFFERS"
    [ "$(awk '/^rewrites:/ { print $2 }' "$r.hybb.err" 2> /dev/null)" = "$h_rew" ] || b_pts="$b_pts; REWRITES DIFFER"
    echo "== $b: with $REC_HYB_B: hybrid whole run ${hybb_ms[$b]} ms, rewriting ${b_k:-?} ms, points ${b_pts:-?}; $(grep '^gpuc: hybrid rule' "$r.hyb.err" 2> /dev/null); with $REC_HYB_B: $(grep '^gpuc: hybrid rule' "$r.hybb.err" 2> /dev/null)"
    tableb+=$'\n'"| $b | $m_ms | $h | ${h_pts:-?} | ${hybb_ms[$b]} | ${b_pts:-?} | ${b_k:-?} | $(ratio "${hybb_ms[$b]}" "$h") |"
  fi
  table+=$'\n'"| $b | $m_cpu ($m_ms) | $h | ${q_m[$b]:-} | ${q_h[$b]:-} | ${q_b[$b]:-} | ${h_k:-?} | ${h_pts:-?} | ${c_ms:-?} | ${gpu_ms[$b]} | ${gpu_k[$b]:-} | $(ratio "$mq" "$hq") | $(ratio "${c_ms:-0}" "$h") | $target |"
done
echo
echo "$table"
[ -z "${REC_HYB_B:-}" ] || printf '\n%s\n' "$tableb"
[ ${#skipped[@]} -eq 0 ] || echo "Maude did not finish within MAUDE_TIMEOUT ($MAUDE_TIMEOUT s) or the time left before the deadline: ${skipped[*]}"
echo "bench-rec: ${#missed[@]} of $((${#benches[@]} - ${#skipped[@]})) miss the target (the hybrid's whole run no slower than Maude's reduce, or within 20 ms under 20 ms): ${missed[*]}"
