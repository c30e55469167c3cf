#!/usr/bin/env bash
# REC benchmarks on the GPU machine (needs nvcc and a GPU, not Go):
# gpuc's GPU programs against its CPU rewriter and against Maude, the
# peer, all three in one run on one machine.
#
#   make bench-artifacts           # here: gpuc, the REC corpus, a Maude bundle
#   scripts/bench-rec.sh DIR       # there
#
# The workloads are the benchmarks of the Rewrite Engines Competition
# (../shared/corpus/trs/rec/REC, which make bench-artifacts copies where
# the checkout has it): every one that Maude reduces within
# MAUDE_TIMEOUT, not a selection; those it does not finish are listed
# as skipped. For each it compiles the .rec file with the static gpuc (--print=summary
# --stats), builds it with nvcc and runs it with --time; runs the CPU
# rewriter (gpuc rewrite, single-threaded); and has Maude reduce the same
# term (gpuc maude --timing, which also reads Maude's normal form back).
# It checks that the three normal forms (size and hash) are the same and
# that the GPU and the CPU rewriter count the same rewrites, and prints
# the times and their ratios: the GPU's rewriting kernels and its whole
# run, the CPU rewriter's own clock, and Maude's report of its reduce
# (real time, whole milliseconds). Maude counts its rewrites its own way,
# with neither gpuc's auxiliary steps (conditions, lets) nor its
# matchers' steps being the same, so only times are compared with it.
#
# Maude runs from DIR/maude (scripts/maude-bundle.sh: the Debian
# package's binary with its libraries), with an unlimited stack, as it
# asks for deep terms. REC_ONLY="a b" runs only those benchmarks;
# MAUDE_TIMEOUT (300) bounds each Maude run, RUN_TIMEOUT (600) each run
# of the GPU program and of the CPU rewriter; GPUC_ARCH sets the GPU
# architecture (sm_90). Last comes a table of every benchmark run: Maude's
# time, the GPU program's whole run (wall clock from process start) and
# rewriting kernels, the CPU rewriter's, and the whole run against Maude.
# GPUC_CHECKS=off compiles without checks of indices and divisors
# (docs/BENCHMARKS.md, the cost of checks). Where hyb-NAME.cpp and .o are
# present (scripts/hybrid-artifacts.sh, which make bench-artifacts runs),
# it also runs the hybrid program (Note [Hybrid migration] in
# backends/cuda/hybrid.h), whose whole run the table sets against Maude
# and the CPU rewriter.
set -uo pipefail
dir=${1:?usage: bench-rec.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
gpuc=./gpuc
maude=./maude/maude
if [ ! -d rec/REC ]; then
  echo "bench-rec: no rec/REC here: make bench-artifacts copies it from ../shared/corpus/trs/rec, which this checkout lacks"
  exit 0
fi
[ -x "$maude" ] || { echo "bench-rec: no $maude (make bench-artifacts bundles the Debian package's Maude where it is installed)"; exit 1; }
echo "bench-rec: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1), CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $("$maude" --version 2>&1 | head -1 | sed 's/^/Maude /')"

if [ -n "${REC_ONLY:-}" ]; then
  benches=($REC_ONLY)
else
  benches=($(cd rec/REC && ls -- *.rec | sed 's/\.rec$//'))
fi
for b in "${benches[@]}"; do
  "$gpuc" compile --checks="${GPUC_CHECKS:-on}" "rec/REC/$b.rec" --print=summary --stats -o "rec-$b.cu" || exit 1
done
printf '%s\n' "${benches[@]}" | xargs -P "$(nproc)" -I{} nvcc -O3 -arch="$arch" -o "rec-{}" "rec-{}.cu" || exit 1
# The hybrid programs (scripts/hybrid-artifacts.sh built their halves).
for b in "${benches[@]}"; do
  [ -f "hyb-$b.cpp" ] && [ -f "hyb-$b.o" ] && echo "$b"
done | xargs -P "$(nproc)" -I{} nvcc -O3 -o "hyb-{}" "hyb-{}.cpp" "hyb-{}.o" -lpthread -ldl || exit 1
ulimit -s unlimited
run_timeout=${RUN_TIMEOUT:-600}
table="| benchmark | Maude reduce ms | GPU whole run ms | GPU kernels ms | CPU rewriter ms | Maude / GPU whole run | hybrid whole run ms | Maude / hybrid | CPU rewriter / hybrid |"$'\n'"|---|---|---|---|---|---|---|---|---|"
skipped=()

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g", a / b; else print "n/a" }'; }
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { if (ms > 0) printf "%.3g", n / (ms / 1000); else print "n/a" }'; }
now() { date +%s%N; }
ms_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }

for b in "${benches[@]}"; do
  file=rec/REC/$b.rec
  "$gpuc" maude --timing "$file" > maude.in
  timeout "${MAUDE_TIMEOUT:-300}" "$maude" -no-banner -batch maude.in > maude.out 2>&1
  m_status=$?
  m_ms=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' maude.out | head -1)
  if [ -z "$m_ms" ]; then
    echo "== $b: Maude did not finish within ${MAUDE_TIMEOUT:-300} s (exit $m_status); skipped"
    skipped+=("$b")
    continue
  fi
  echo "== $b"
  t0=$(now)
  timeout "$run_timeout" ./"rec-$b" --time > gpu.out 2> gpu.err
  status=$?
  g_wall=$(ms_since "$t0")
  if [ "$status" != 0 ]; then
    echo "GPU program failed (exit $status; 124: over RUN_TIMEOUT):"
    cat gpu.err
    table+=$'\n'"| $b | $m_ms | failed (exit $status) | | | | | | |"
    continue
  fi
  g_ms=$(grep -o ' main [0-9.]* ms' gpu.err | awk '{ print $2 }')
  [ -n "$g_ms" ] || g_ms=$(grep -o 'kernels [0-9.]* ms' gpu.err | awk '{ print $2 }')
  g_rew=$(awk '/^rewrites:/ { print $2 }' gpu.err)
  echo "gpu: $g_rew rewrites, kernels $g_ms ms ($(rate "$g_rew" "$g_ms") rewrites/s), whole run $g_wall ms; $(grep '^iterations:\|^live terms:\|^peak parallelism:\|^store slots used:' gpu.err | tr '\n' ' ')"

  timeout "$run_timeout" "$gpuc" rewrite "$file" --print=summary --stats --time > cpu.out 2> cpu.err
  c_ms=$(grep -o 'in [0-9.]* ms' cpu.err | awk '{ print $2 }')
  c_rew=$(awk '/^rewrites:/ { print $2 }' cpu.err)
  c_span=$(awk '/^critical path:/ { print $3 }' cpu.err)
  echo "cpu (gpuc rewrite, 1 thread): $c_rew rewrites in $c_ms ms ($(rate "$c_rew" "$c_ms") rewrites/s); critical path $c_span, parallelism $(ratio "$c_rew" "$c_span")"

  m_rew=$(sed -n 's/^rewrites: \([0-9]*\) in.*/\1/p' maude.out | head -1)
  m_sum=$("$gpuc" maude --result maude.out --print=summary "$file" 2>&1 | head -1)
  echo "maude: ${m_rew:-?} of its rewrites in ${m_ms:-?} ms real"

  g_out=$(head -1 gpu.out)
  same="same normal form"
  [ "$g_out" = "$(head -1 cpu.out)" ] && [ "$g_out" = "$m_sum" ] || same="NORMAL FORMS DIFFER: gpu '$g_out', cpu '$(head -1 cpu.out)', maude '$m_sum'"
  [ "$g_rew" = "$c_rew" ] || same="$same; REWRITES DIFFER (gpu $g_rew, cpu $c_rew)"
  echo "speedups (the other's time / this one's): gpu kernels over the CPU rewriter $(ratio "$c_ms" "$g_ms"), over Maude $(ratio "${m_ms:-0}" "$g_ms"); whole gpu run over Maude $(ratio "${m_ms:-0}" "$g_wall"); CPU rewriter over Maude $(ratio "${m_ms:-0}" "$c_ms"); $same"
  # The hybrid program, with the CAPACITY that the GPU-only program
  # fitted to the device (the hybrid fits to the host's memory).
  h_wall=n/a
  if [ -x "hyb-$b" ]; then
    cap=$(sed -n 's/^gpuc: CAPACITY=\([0-9]*\) fitted.*/\1/p' gpu.err | head -1)
    t0=$(now)
    timeout "$run_timeout" ./"hyb-$b" ${cap:+CAPACITY=$cap} --time > hyb.out 2> hyb.err
    h_status=$?
    h_wall=$(ms_since "$t0")
    h_rew=$(awk '/^rewrites:/ { print $2 }' hyb.err)
    h_same="same normal form and rewrites as the GPU program"
    [ "$(head -1 hyb.out)" = "$g_out" ] && [ "$h_rew" = "$g_rew" ] || h_same="HYBRID DIFFERS: '$(head -1 hyb.out)', $h_rew rewrites"
    [ "$h_status" = 0 ] || { h_same="hybrid failed (exit $h_status): $(tail -1 hyb.err)"; h_wall=failed; }
    echo "hybrid: whole run $h_wall ms; $(grep '^gpuc: hybrid points' hyb.err); Maude / hybrid $(ratio "${m_ms:-0}" "$h_wall"), CPU rewriter / hybrid $(ratio "${c_ms:-0}" "$h_wall"); $h_same"
  fi
  table+=$'\n'"| $b | $m_ms | $g_wall | ${g_ms:-?} | ${c_ms:-?} | $(ratio "$m_ms" "$g_wall") | $h_wall | $(ratio "$m_ms" "$h_wall") | $(ratio "${c_ms:-0}" "$h_wall") |"
done
echo
echo "$table"
[ ${#skipped[@]} -eq 0 ] || echo "Maude did not finish within ${MAUDE_TIMEOUT:-300} s: ${skipped[*]}"
