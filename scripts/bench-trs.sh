#!/usr/bin/env bash
# TRS benchmarks on the GPU machine (needs nvcc and a GPU, not Go):
#
#   make bench-artifacts           # here: a static gpuc, the .trs files, these scripts
#   scripts/bench-trs.sh DIR       # there
#
# The workloads are the TRS paper's (Table 2): the transformation tree at
# depths 22 and 26, tree merge sort at depth 23 with lists of 5, and merge
# sort of one list of 50 (examples/trs). For each, it compiles the .trs
# file with the static gpuc, builds it with nvcc, runs it with --time and
# STATS=1, and runs the CPU rewriter (gpuc rewrite, single-threaded) on
# the same machine; it checks that both print the same normal form (its
# size and hash) and the same number of rewrites, and prints rewrites per
# second from the GPU program's rewriting kernels (those that main
# launches; the summary's kernels, which trs_output launches, are shown
# apart, with the whole run's wall time) and the CPU rewriter's own
# clock. It then measures the worklist against the paper's scan of all
# slots (WORKLIST=0), forking walks against depth-first ones (FORK=0,
# Note [Forks] in frontends/trs/lower.go), fresh slots first against the
# paper's freed slots first (FRESH=0, Note [Fresh slots first]), tree
# merge sort in a store too small for fresh slots alone, merge sort of 50 on each
# of its paths (the one-block loop, the grid-wide loop) and with other
# walk lengths (LOCAL), and writes merge sort's trace and figure (mergesort50.csv,
# mergesort50.svg; the paper's Figure 2). Last, it measures the device's
# random-access bandwidth (trs_gather.cu) and, where Nsight Compute (ncu)
# is present, the DRAM traffic of the transformation tree at depth 22 and
# tree merge sort at depth 20 (smaller than above: ncu replays every
# kernel), for the paper's Table 3.
#
# Where hyb-NAME.cpp and .o are present (scripts/hybrid-artifacts.sh),
# each workload's hybrid program runs too: by default and GPU only
# (HYBRID=0), and on transtree22 and mergesort50 also CPU only
# (HYBRID=cpu) and moving at every point (HYBRID_MIGRATE=every);
# TRS_HYBRID=0 skips them.
# TRS_CPU=0 skips the CPU rewriter, which takes minutes at full size,
# and TRS_CPU=small runs it on transtree22 and mergesort50 only;
# TRS_VARIANTS=0 runs only the workloads, their CPU rewriter and hybrid
# programs (no WORKLIST, FORK or FRESH variants, paths, walk lengths,
# trace, bandwidth or DRAM traffic: issue 17's figures in a few minutes);
# TRS_NCU=0 skips the Nsight Compute runs (TRS_NCU_TIMEOUT bounds each,
# 300 s); TRS_ONLY=dram runs only the bandwidth measurements.
# GPUC_ARCH sets the GPU architecture (sm_90).
# GPUC_CHECKS=off compiles without checks of indices and divisors
# (docs/BENCHMARKS.md, the cost of checks).
set -uo pipefail
dir=${1:?usage: bench-trs.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
gpuc=./gpuc
echo "bench-trs: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1), CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# nest N INNER F: F(F(...F(INNER)...)), N deep.
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"

# name, file, input term (empty: the file's own), capacity in slots.
workloads=(
  "transtree22|transtree.trs|Expand($(nest 22 'Zero()' Suc))|9000000"
  "transtree26|transtree.trs|Expand($(nest 26 'Zero()' Suc))|140000000"
  "treemergesort23|treemergesort.trs|Gen($(nest 23 'Zero()' S), $list5)|1000000000"
  "mergesort50|mergesort.trs||1048576"
  "treemergesort20|treemergesort.trs|Gen($(nest 20 'Zero()' S), $list5)|200000000"
)

for w in "${workloads[@]}"; do
  IFS='|' read -r name file input cap <<< "$w"
  args=()
  [ -n "$input" ] && args=(--input "$input")
  "$gpuc" compile --checks="${GPUC_CHECKS:-on}" "$file" "${args[@]}" --print=summary --stats -o "trs-$name.cu" || exit 1
  printf '%s' "$input" > "trs-$name.input"
done
for w in "${workloads[@]}"; do
  name=${w%%|*}
  nvcc -O3 -arch="$arch" -o "trs-$name" "trs-$name.cu" &
done
nvcc -O3 -arch="$arch" -o trs_gather trs_gather.cu &
# The hybrid programs (scripts/hybrid-artifacts.sh built their halves).
for w in "${workloads[@]}"; do
  name=${w%%|*}
  [ -f "hyb-$name.cpp" ] && [ -f "hyb-$name.o" ] && nvcc -O3 -o "hyb-$name" "hyb-$name.cpp" "hyb-$name.o" -lpthread -ldl &
done
wait

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g", a / b; else print "n/a" }'; }
rate() { awk -v n="$1" -v ms="$2" 'BEGIN { if (ms > 0) printf "%.3g", n / (ms / 1000); else print "n/a" }'; }

# gpu NAME CAP [NAME=VALUE...]: runs the GPU program and sets g_rew (its
# rewrites), g_ms (the time of the rewriting kernels: those that main
# launches, not the summary's, which trs_output launches), g_rate and
# g_out (its first line).
gpu() {
  local name=$1 cap=$2 t0 t1
  shift 2
  t0=$(date +%s%N)
  ./"trs-$name" CAPACITY="$cap" "$@" --time > gpu.out 2> gpu.err
  local status=$?
  t1=$(date +%s%N)
  g_rew=$(awk '/^rewrites:/ { print $2 }' gpu.err)
  g_ms=$(grep -o ' main [0-9.]* ms' gpu.err | awk '{ print $2 }')
  [ -n "$g_ms" ] || g_ms=$(grep -o 'kernels [0-9.]* ms' gpu.err | awk '{ print $2 }')
  g_sum=$(grep -o 'trs_output [0-9.]* ms' gpu.err | awk '{ print $2 }')
  g_rate=$(rate "${g_rew:-0}" "${g_ms:-0}")
  g_out=$(head -1 gpu.out)
  if [ "$status" != 0 ]; then
    echo "GPU program failed (exit $status):"
    cat gpu.err
  fi
  echo "gpu $* : ${g_rew:-?} rewrites, kernels ${g_ms:-?} ms: $g_rate rewrites/s; summary kernels ${g_sum:-none} ms; whole run $(( (t1 - t0) / 1000000 )) ms; $(grep '^iterations:\|^live terms:\|^peak parallelism:\|^store slots used:' gpu.err | tr '\n' ' ')"
  grep launches gpu.err
}

# hybrid NAME CAP [ENV...]: runs the hybrid program (Note [Hybrid
# migration] in backends/cuda/hybrid.h) with ENV set, and prints its whole
# run from process start, where its hybrid points ran, its whole run
# against the CPU rewriter's time (c_ms, where measured) and whether it
# printed the GPU program's normal form and rewrites.
hybrid() {
  local name=$1 cap=$2 t0 t1 status rew same
  shift 2
  [ -x "hyb-$name" ] || { echo "hybrid: no hyb-$name (scripts/hybrid-artifacts.sh)"; return; }
  t0=$(date +%s%N)
  env "$@" ./"hyb-$name" CAPACITY="$cap" --time > hyb.out 2> hyb.err
  status=$?
  t1=$(date +%s%N)
  h_wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
  rew=$(awk '/^rewrites:/ { print $2 }' hyb.err)
  same="same normal form and rewrites as the GPU program"
  [ "$(head -1 hyb.out)" = "$g_out" ] && [ "$rew" = "$g_rew" ] || same="HYBRID DIFFERS: '$(head -1 hyb.out)', $rew rewrites"
  [ "$status" = 0 ] || same="hybrid failed (exit $status): $(tail -2 hyb.err | tr '\n' ' ')"
  echo "hybrid $* : whole run $h_wall ms; rewriting $(grep -o 'device time [0-9.]* ms' hyb.err | awk '{ print $3 }') ms; $(grep '^gpuc: hybrid points' hyb.err | sed 's/^gpuc: //'); CPU rewriter / hybrid whole run $(ratio "${c_ms:-0}" "$h_wall"); $same"
}

# cpu NAME FILE: runs the CPU rewriter and sets c_rew, c_ms, c_rate, c_out
# and c_span, the critical path (Note [Critical path] in
# frontends/trs/rewrite).
# A run under a second is repeated, nine times in all, and c_ms is the
# median: merge sort of 50 took 0.3 to 1.3 ms from one run to the next.
cpu() {
  local name=$1 file=$2 input times=() runs=1 i
  input=$(cat "trs-$name.input")
  local args=()
  [ -n "$input" ] && args=(--input "$input")
  for ((i = 0; i < runs; i++)); do
    "$gpuc" rewrite "$file" "${args[@]}" --print=summary --stats --time > cpu.out 2> cpu.err
    times+=("$(grep -o 'in [0-9.]* ms' cpu.err | awk '{ print $2 }')")
    if [ "$i" = 0 ] && awk -v ms="${times[0]:-0}" 'BEGIN { exit !(ms > 0 && ms < 1000) }'; then runs=9; fi
  done
  c_rew=$(awk '/^rewrites:/ { print $2 }' cpu.err)
  c_span=$(awk '/^critical path:/ { print $3 }' cpu.err)
  c_ms=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
  c_rate=$(rate "${c_rew:-0}" "${c_ms:-0}")
  c_out=$(head -1 cpu.out)
  local spread=""
  [ "$runs" -gt 1 ] && spread=" (median of $runs: $(printf '%s ' "${times[@]}"| xargs))"
  echo "cpu (gpuc rewrite, 1 thread): ${c_rew:-?} rewrites in ${c_ms:-?} ms$spread: $c_rate rewrites/s; critical path ${c_span:-?} rewrites"
}

# per A B: A / B, one decimal.
per() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }

for w in "${workloads[@]}"; do
  IFS='|' read -r name file input cap <<< "$w"
  [ "${TRS_ONLY:-}" = dram ] || [ "$name" = treemergesort20 ] && continue
  echo "== $name ($file, CAPACITY=$cap)"
  gpu "$name" "$cap"
  if [ "${TRS_CPU:-1}" != 0 ] && { [ "${TRS_CPU:-1}" != small ] || [ "$name" = transtree22 ] || [ "$name" = mergesort50 ]; }; then
    cpu "$name" "$file"
    same="same normal form and rewrites"
    [ "$g_out" = "$c_out" ] && [ "$g_rew" = "$c_rew" ] || same="OUTPUTS DIFFER: gpu '$g_out' $g_rew, cpu '$c_out' $c_rew"
    echo "gpu/cpu: $(ratio "$g_rate" "$c_rate")x the CPU rewriter's rate; $same"
    # A GPU that runs the critical path one rewrite after another matches
    # the CPU only if a rewrite on it takes at most the CPU's time per
    # rewrite times the parallelism (rewrites / critical path).
    echo "gpu ns per critical-path rewrite: $(per "$(awk -v m="${g_ms:-0}" 'BEGIN { print m * 1e6 }')" "${c_span:-0}"); to match the CPU: at most $(per "$(awk -v m="${c_ms:-0}" 'BEGIN { print m * 1e6 }')" "${c_span:-0}")"
  fi
  if [ "${TRS_HYBRID:-1}" != 0 ]; then
    hybrid "$name" "$cap"
    hybrid "$name" "$cap" HYBRID=0
    # The CPU alone and moves at every point, on the smaller workloads:
    # the CPU takes minutes on the others.
    case $name in transtree22 | mergesort50)
      hybrid "$name" "$cap" HYBRID=cpu
      hybrid "$name" "$cap" HYBRID_MIGRATE=every
    esac
  fi
  [ "${TRS_VARIANTS:-1}" != 0 ] || continue
  echo "-- the paper's scan of all slots (WORKLIST=0)"
  gpu "$name" "$cap" WORKLIST=0
  echo "-- depth-first walks (FORK=0)"
  gpu "$name" "$cap" FORK=0
  echo "-- freed slots before fresh ones, the paper's order (FRESH=0)"
  gpu "$name" "$cap" FRESH=0
done
[ "${TRS_VARIANTS:-1}" != 0 ] || exit 0

if [ "${TRS_ONLY:-}" != dram ]; then
echo "== treemergesort23 in a smaller store: fresh slots run out, freed ones follow"
gpu treemergesort23 600000000
echo "== mergesort50: paths and walk lengths"
gpu mergesort50 1048576 SMALL=0
gpu mergesort50 1048576 SMALL=1000000
for local in 16 64 1024 4096 65536; do gpu mergesort50 1048576 LOCAL=$local; done
./trs-mergesort50 TRACE=1 > trace.out
sed -n '/^iteration,/,$p' trace.out > mergesort50.csv
"$gpuc" plot mergesort50.csv -o mergesort50.svg && echo "wrote mergesort50.csv and mergesort50.svg"
echo "== transtree22: walk lengths and processors"
for local in 16 64 1024; do gpu transtree22 9000000 LOCAL=$local; done
gpu transtree22 9000000 PROCS=270336
fi

echo "== random-access bandwidth"
./trs_gather 4 | tee gather.out
# dram NAME CAP: the DRAM traffic of every kernel of one run under Nsight
# Compute, over the kernels' time as ncu measured it, as a fraction of the
# gather's sector bandwidth (the paper's Table 3). ncu flushes the caches
# before each kernel, as the paper's profiler did.
dram() {
  local name=$1 cap=$2 sectors
  # GPUC_DETACH=0: ncu follows one process (Note [Detached exit]).
  if ! GPUC_DETACH=0 timeout "${TRS_NCU_TIMEOUT:-300}" ncu --csv --print-units base \
      --kernel-name 'regex:^(main|trs_init|trs_small)' \
      --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
      ./"trs-$name" CAPACITY="$cap" > "ncu-$name.csv" 2> "ncu-$name.err"; then
    echo "$name: ncu failed or timed out"; tail -3 "ncu-$name.err"; return
  fi
  sectors=$(grep -o '[0-9.]* GiB/s in 32-byte sectors' gather.out | awk '{ print $1 }')
  awk -F'","' -v name="$name" -v sectors="$sectors" '
    /dram__bytes_(read|write)\.sum/ { v = $NF; gsub(/[",]/, "", v); bytes += v }
    /gpu__time_duration\.sum/ { v = $NF; gsub(/[",]/, "", v); ns += v; kernels++ }
    END {
      if (ns == 0) { print name ": no kernels profiled"; exit }
      gib = bytes / (ns / 1e9) / 2^30
      printf "%s: %d kernels, DRAM traffic %.0f bytes in %.2f ms: %.1f GiB/s, %.3g of the gather sector bandwidth (%s GiB/s)\n", name, kernels, bytes, ns / 1e6, gib, gib / sectors, sectors
    }' "ncu-$name.csv"
}

if [ "${TRS_NCU:-1}" != 0 ] && command -v ncu > /dev/null; then
  echo "== DRAM traffic under Nsight Compute"
  dram transtree22 9000000
  dram treemergesort20 200000000
else
  echo "no ncu, or TRS_NCU=0: the DRAM traffic of the rewriter is not measured"
fi
