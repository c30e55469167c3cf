#!/usr/bin/env bash
# What the exit of a CUDA program costs, and what the detached exit
# hides (Note [Detached exit] in backends/cuda/detach.h; issue 17's
# targets: every REC benchmark's whole run no slower than Maude's reduce,
# or within 20 ms where Maude takes under 20 ms; merge sort of 50 within
# 2x the CPU rewriter plus 5 ms).
#
#   scripts/bench-exit.sh --build DIR   # here: Go, llc-16, clang-16 (and Maude, bundled where installed)
#   scripts/bench-exit.sh DIR           # on the GPU machine: g++, nvcc, one GPU; no Go, no LLVM
#
# --build writes into DIR the hybrid programs' halves (hyb-NAME.cpp and
# hyb-NAME.o, as scripts/hybrid-artifacts.sh builds them) of factorial9,
# revnat1000, quicksort100, tak18 and mergesort1000 (the REC corpus, from
# ../shared/corpus/trs/rec/REC) and mergesort50 (examples/trs), each
# one's reduce for Maude (NAME.maude.in), a Maude bundle
# (scripts/maude-bundle.sh), and a small kernel program (examples/kir/
# scan.kir) as a runtime API program (exit-rt.cu) and a driver API one
# (exit-drv.cpp), to measure plain CUDA programs' exits.
#
# On the GPU machine it links them, all at once, runs each hybrid program
# once with HYBRID=0 so that the driver's cache holds its PTX compiled,
# and then runs each program RUNS (5) times in each mode, printing the
# median wall clock of the whole process (from the shell's fork to its
# exit, output into files) in ms:
#   hybrid programs: the default (detached), GPUC_DETACH=0 (the process
#   waits for the driver), HYBRID=cpu (no CUDA context at all), and the
#   GPU path, HYBRID=0, detached and not (the context's teardown);
#   Maude's reduce (its own "ms real", and its process's wall clock);
#   the ratio of Maude's reduce to the default's whole run (above 1:
#   faster than Maude) and whether issue 17's target is met;
#   plain CUDA programs: their default (attached) against GPUC_DETACH=1,
#   with --time's device time.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
recs="factorial9 revnat1000 quicksort100 tak18 mergesort1000"

if [ "${1:-}" = --build ]; then
  dir=${2:?usage: bench-exit.sh --build DIR}
  corpus=$root/../shared/corpus/trs/rec/REC
  [ -d "$corpus" ] || { echo "bench-exit: no $corpus: the REC corpus is missing"; exit 1; }
  mkdir -p "$dir/rec" || exit 1
  (cd "$root" && CGO_ENABLED=0 go build -o "$dir/gpuc" ./cmd/gpuc) || exit 1
  cp -r "$corpus" "$corpus/../REC-LIB" "$dir/rec/" || exit 1
  cp "$0" "$dir/bench-exit.sh"
  cd "$dir" || exit 1
  TRS_ONLY=mergesort50 REC_ONLY="$recs" "$root/scripts/hybrid-artifacts.sh" . || exit 1
  for b in $recs; do ./gpuc maude --timing "rec/REC/$b.rec" > "$b.maude.in" || exit 1; done
  ./gpuc maude --timing mergesort.trs > mergesort50.maude.in || exit 1
  ./gpuc compile "$root/examples/kir/scan.kir" -o exit-rt.cu || exit 1
  ./gpuc compile --emit=llvm-host "$root/examples/kir/scan.kir" -o exit-drv.cpp || exit 1
  rm -rf maude && "$root/scripts/maude-bundle.sh" maude
  echo "bench-exit: built in $dir; on the GPU machine: bench-exit.sh DIR"
  exit 0
fi

dir=${1:?usage: bench-exit.sh [--build] DIR}
cd "$dir" || exit 1
runs=${RUNS:-5}
arch=${GPUC_ARCH:-sm_90}
cuda=${CUDA_HOME:-$(dirname "$(dirname "$(command -v nvcc)")")}
maude=./maude/maude
echo "bench-exit: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nproc) cores, $(nvcc --version | tail -1), CUDA at $cuda"
progs="$recs mergesort50"
t_start=$(date +%s)
{
  for b in $progs; do echo "g++ -O2 -I$cuda/include -o hyb-$b hyb-$b.cpp hyb-$b.o -lpthread -ldl"; done
  echo "nvcc -O3 -arch=$arch -o exit-rt exit-rt.cu"
  echo "g++ -O2 -I$cuda/include -o exit-drv exit-drv.cpp -L$cuda/lib64 -L$cuda/lib64/stubs -lcuda"
} | xargs -P "$(nproc)" -I{} sh -c '{} || echo "bench-exit: failed: {}"'
# The driver's compilation of each program's PTX, cached for the runs.
for b in $progs; do HYBRID=0 timeout 120 "./hyb-$b" CAPACITY=4000000 MAXITER=1 > /dev/null 2>&1 & done
[ -x exit-drv ] && ./exit-drv > /dev/null 2>&1 &
wait
echo "bench-exit: built and warmed up in $(($(date +%s) - t_start)) s"
mkdir -p exit-runs

now() { date +%s%N; }
# wall RUNS CMD...: the median wall clock of RUNS runs of CMD, in ms, as
# VISIBLE/ALL: ALL lasts until every process of the program, a detached
# child included, has ended (polled, every 2 ms); the next run starts
# then. The last run's output is in exit-runs/last.{out,err}; a run that
# failed is noted in exit-runs/failed.
wall() {
  local n=$1 i t0 t1 st prog vis=() all=()
  shift
  for prog in "$@"; do [[ $prog == ./* ]] && break; done
  for ((i = 0; i < n; i++)); do
    t0=$(now)
    "$@" > exit-runs/last.out 2> exit-runs/last.err
    st=$?
    t1=$(now)
    while pgrep -f -- "^$prog( |\$)" > /dev/null; do sleep 0.002; done
    vis+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')")
    all+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')")
    [ "$st" = 0 ] || echo "$*: exit $st: $(tail -1 exit-runs/last.err)" >> exit-runs/failed
  done
  median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  echo "$(median "${vis[@]}")/$(median "${all[@]}")"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g", a / b; else print "n/a" }'; }
# same NAME WHAT: the last run printed what NAME's first did.
same() {
  if [ ! -f "exit-runs/$1.out" ]; then
    cp exit-runs/last.out "exit-runs/$1.out"
  elif ! cmp -s exit-runs/last.out "exit-runs/$1.out"; then
    echo "$1: $2 prints other bytes" >> exit-runs/failed
  fi
}
rm -f exit-runs/failed exit-runs/*.out

printf '%-14s %13s %13s %13s %13s %13s %7s %9s %7s %s\n' benchmark default DETACH=0 HYB=cpu GPU GPU,D=0 maude maude-ps ratio target
for b in $progs; do
  d=$(wall "$runs" "./hyb-$b") && same "$b" default
  a=$(wall "$runs" env GPUC_DETACH=0 "./hyb-$b") && same "$b" GPUC_DETACH=0
  c=$(wall "$runs" env HYBRID=cpu "./hyb-$b") && same "$b" HYBRID=cpu
  # --time: where the points ran, the rewriting's time.
  "./hyb-$b" --time > /dev/null 2> "exit-runs/$b.time"
  g=$(wall "$runs" env HYBRID=0 "./hyb-$b") && same "$b" HYBRID=0
  g0=$(wall "$runs" env HYBRID=0 GPUC_DETACH=0 "./hyb-$b") && same "$b" "HYBRID=0 GPUC_DETACH=0"
  m=n/a mp=n/a
  if [ -x "$maude" ] && [ -f "$b.maude.in" ]; then
    mp=$(ulimit -s unlimited; wall 3 "$maude" -no-banner -batch "$b.maude.in")
    mp=${mp%/*}
    m=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' exit-runs/last.out | head -1)
    [ -n "$m" ] || m=n/a
  fi
  target=n/a
  if [ "$m" != n/a ]; then
    target=$(awk -v h="${d%/*}" -v m="$m" 'BEGIN { print (h <= m || (m < 20 && h <= m + 20)) ? "met" : "MISS" }')
  fi
  if [ "$b" = mergesort50 ] && [ -x ./gpuc ]; then
    # The CPU rewriter's own clock, the median of RUNS runs.
    cm=$(for ((i = 0; i < runs; i++)); do ./gpuc rewrite mergesort.trs --print=summary --stats --time 2>&1 >/dev/null |
      sed -n 's/^gpuc rewrite: [0-9]* rewrites in \([0-9.]*\) ms.*/\1/p'; done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    target="$target; CPU rewriter ${cm:-?} ms: $(awk -v h="${d%/*}" -v c="${cm:-0}" 'BEGIN { print (c > 0 && h <= 2 * c + 5) ? "met" : "MISS" }') (2x + 5 ms)"
  fi
  printf '%-14s %13s %13s %13s %13s %13s %7s %9s %7s %s\n' "$b" "$d" "$a" "$c" "$g" "$g0" "$m" "$mp" "$(ratio "$m" "${d%/*}")" "$target"
done
echo
for b in $progs; do
  echo "$b --time: $(grep -o 'device time [0-9.]* ms' "exit-runs/$b.time" | head -1); $(grep '^gpuc: hybrid points' "exit-runs/$b.time" | sed 's/^gpuc: //')"
done

echo
printf '%-10s %13s %13s %12s\n' program attached detached "--time ms"
for p in exit-rt exit-drv; do
  [ -x "./$p" ] || { echo "$p: not built"; continue; }
  a=$(wall "$runs" "./$p" --time) && same "$p" default
  tm=$(grep -o '[0-9.]* ms' exit-runs/last.err | head -1)
  d=$(wall "$runs" env GPUC_DETACH=1 "./$p" --time) && same "$p" GPUC_DETACH=1
  printf '%-10s %13s %13s %12s\n' "$p" "$a" "$d" "${tm:-n/a}"
done
[ -f exit-runs/failed ] && { echo "bench-exit: runs that failed or printed other bytes than the first mode:"; sort -u exit-runs/failed; }
echo "bench-exit: medians of $runs runs' wall clock in ms, as VISIBLE/ALL: the process from fork to exit / until its detached child, if any, has ended too; GPU = HYBRID=0, D=0 = GPUC_DETACH=0; maude = its reduce's ms real, maude-ps its process; ratio = maude / default"
