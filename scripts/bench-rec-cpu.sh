#!/usr/bin/env bash
# The REC benchmarks on a machine without a GPU (needs Go, clang-16, a
# C++ compiler and maude; issue 17): the hybrid program's CPU side
# against Maude's reduce and gpuc's CPU rewriter, all in one run.
#
#   scripts/bench-rec-cpu.sh [DIR]   # DIR: where to build (a new temporary folder)
#
# For each benchmark of ../shared/corpus/trs/rec/REC (REC_ONLY="a b" for
# some) it builds the hybrid program as scripts/hybrid-artifacts.sh does
# (--emit=llvm-hybrid and the --target=host kernels, HYBRIDITER=16,
# --print=summary --stats), with the host compiler against the stub
# cuda.h of backends/cuda/testdata/driver instead of nvcc, and runs it
# with HYBRID=cpu --time; runs gpuc rewrite (--time); and has Maude 3.2
# reduce the same term (gpuc maude --timing). Each run is bounded by
# RUN_TIMEOUT seconds (300), Maude's by MAUDE_TIMEOUT (300); a benchmark
# that Maude does not finish is listed as skipped. A program already in
# DIR is built again only where gpuc is newer, or never with
# REC_REBUILD=0. The machine may be
# shared, so the figures are CPU times of each whole process (perf stat's
# task-clock where perf works, else user + sys from /usr/bin/time, to
# 10 ms), beside Maude's own report of its
# reduce (CPU and real ms) and the CPU rewriter's own clock. It checks
# that the three normal forms (size and hash) agree and that the hybrid
# program and the CPU rewriter count the same rewrites, and marks
# SLOWER every benchmark where the hybrid program's whole process took
# more CPU than Maude's reduce, and more than 20 ms beyond it where
# Maude's reduce took under 20 ms (the target of issue 17).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$(mktemp -d)}
corpus=$root/../shared/corpus/trs/rec/REC
if [ ! -d "$corpus" ]; then
  echo "bench-rec-cpu: no $corpus: this checkout lacks the corpus"
  exit 0
fi
command -v maude > /dev/null || { echo "bench-rec-cpu: no maude on PATH"; exit 1; }
cxx=${CXX:-$(command -v clang++-16 || command -v g++)}
mkdir -p "$dir" || exit 1
(cd "$root" && go build -o "$dir/gpuc" ./cmd/gpuc) || exit 1
cd "$dir" || exit 1
gpuc=./gpuc
stub=$root/backends/cuda/testdata/driver
run_timeout=${RUN_TIMEOUT:-300}
if [ -n "${REC_ONLY:-}" ]; then
  benches=($REC_ONLY)
else
  benches=($(cd "$corpus" && ls -- *.rec | sed 's/\.rec$//'))
fi
echo "bench-rec-cpu: $(date -u +%Y-%m-%dT%H:%MZ) at $(cd "$root" && git rev-parse --short HEAD), $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), load $(cut -d' ' -f1-3 /proc/loadavg), $(maude --version 2>&1 | head -1 | sed 's/^/Maude /'), $("$cxx" --version | head -1)"

# build NAME: hyb-NAME, the hybrid program linked against the stub cuda.h.
build() {
  local b=$1 f=$corpus/$1.rec
  [ -x "hyb-$b" ] && { [ "${REC_REBUILD:-1}" = 0 ] || [ "hyb-$b" -nt "$gpuc" ]; } && return 0
  "$gpuc" compile --emit=llvm-hybrid "$f" --print=summary --stats -o "hyb-$b.cpp" HYBRIDITER=16 &&
    "$gpuc" compile --emit=llvm --target=host "$f" --print=summary --stats -o "hyb-$b.ll" HYBRIDITER=16 &&
    clang-16 -O2 -Wno-override-module -c "hyb-$b.ll" -o "hyb-$b.o" &&
    "$cxx" -std=c++17 -O2 -w -I "$stub" -o "hyb-$b" "hyb-$b.cpp" "hyb-$b.o" -lpthread -ldl &&
    rm -f "hyb-$b.ll" "hyb-$b.cpp" "hyb-$b.o"
}
for b in "${benches[@]}"; do
  build "$b" || echo "bench-rec-cpu: $b: not built"
done

ulimit -s unlimited
# measure FILE CMD...: runs CMD, writing its CPU time to FILE; cpu FILE
# reads it back in ms.
if perf stat -x, -e task-clock -o /dev/null true 2> /dev/null; then
  measure() { local o=$1; shift; perf stat -x, -e task-clock -o "$o" -- "$@"; }
  cpu() { awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$1"; }
else
  measure() { local o=$1; shift; /usr/bin/time -f '%U %S' -o "$o" "$@"; }
  cpu() { awk '/^[0-9.]+ [0-9.]+$/ { printf "%d", ($1 + $2) * 1000 }' "$1"; }
fi
table="| benchmark | Maude reduce CPU ms (real) | Maude process CPU ms | CPU rewriter ms (process CPU ms) | hybrid process CPU ms | hybrid rewriting ms | hybrid - Maude reduce ms | |"$'\n'"|---|---|---|---|---|---|---|---|"
skipped=() slower=()
for b in "${benches[@]}"; do
  f=$corpus/$b.rec
  [ -x "hyb-$b" ] || { table+=$'\n'"| $b | | | | not built | | | |"; continue; }
  "$gpuc" maude --timing "$f" > "$b.maude.in"
  measure "$b.maude.time" timeout "${MAUDE_TIMEOUT:-300}" maude -no-banner -batch "$b.maude.in" > "$b.maude.out" 2>&1
  m_cpu=$(sed -n 's/^rewrites: [0-9]* in \([0-9]*\)ms cpu ([0-9]*ms real).*/\1/p' "$b.maude.out" | head -1)
  m_real=$(sed -n 's/^rewrites: [0-9]* in [0-9]*ms cpu (\([0-9]*\)ms real).*/\1/p' "$b.maude.out" | head -1)
  if [ -z "$m_cpu" ]; then
    echo "== $b: Maude did not finish within ${MAUDE_TIMEOUT:-300} s; skipped"
    skipped+=("$b")
    continue
  fi
  m_sum=$("$gpuc" maude --result "$b.maude.out" --print=summary "$f" 2>&1 | head -1)
  measure "$b.hyb.time" timeout "$run_timeout" env HYBRID=cpu ./"hyb-$b" --time > "$b.hyb.out" 2> "$b.hyb.err"
  h_status=$?
  h_cpu=$(cpu "$b.hyb.time")
  h_ms=$(grep -o 'device time [0-9.]* ms' "$b.hyb.err" | awk '{ print $3 }')
  h_rew=$(awk '/^rewrites:/ { print $2 }' "$b.hyb.err")
  measure "$b.cpu.time" timeout "$run_timeout" "$gpuc" rewrite "$f" --print=summary --stats --time > "$b.cpu.out" 2> "$b.cpu.err"
  c_cpu=$(cpu "$b.cpu.time")
  c_ms=$(grep -o 'in [0-9.]* ms' "$b.cpu.err" | awk '{ print $2 }')
  c_rew=$(awk '/^rewrites:/ { print $2 }' "$b.cpu.err")
  same=""
  h_out=$(head -1 "$b.hyb.out")
  [ "$h_status" = 0 ] || same="hybrid failed (exit $h_status; 124: over RUN_TIMEOUT): $(tail -1 "$b.hyb.err")"
  [ -n "$same" ] || [ "$h_out" = "$m_sum" ] || same="NORMAL FORMS DIFFER: hybrid '$h_out', maude '$m_sum'"
  [ -n "$same" ] || [ -z "$c_rew" ] || [ "$h_out" = "$(head -1 "$b.cpu.out")" ] || same="NORMAL FORMS DIFFER: hybrid '$h_out', cpu '$(head -1 "$b.cpu.out")'"
  [ -n "$same" ] || [ -z "$c_rew" ] || [ "$h_rew" = "$c_rew" ] || same="REWRITES DIFFER: hybrid $h_rew, cpu $c_rew"
  [ -n "$c_rew" ] || c_ms="over ${run_timeout} s"
  verdict=$(awk -v h="${h_cpu:-0}" -v m="$m_cpu" -v ok="$h_status" 'BEGIN { d = h - m; if (ok != 0) print "FAILED"; else if ((m >= 20 && d > 0) || (m < 20 && d > 20)) print "SLOWER"; else print "ok" }')
  [ -z "$same" ] || verdict="$verdict; $same"
  [ "${verdict%%;*}" = ok ] || slower+=("$b")
  echo "== $b: Maude reduce ${m_cpu} ms CPU (${m_real} ms real), process $(cpu "$b.maude.time") ms; CPU rewriter ${c_ms} ms, process ${c_cpu} ms; hybrid process ${h_cpu} ms CPU, rewriting ${h_ms:-?} ms, ${h_rew:-?} rewrites, $(grep '^gpuc: hybrid points' "$b.hyb.err"); $verdict"
  table+=$'\n'"| $b | $m_cpu ($m_real) | $(cpu "$b.maude.time") | $c_ms ($c_cpu) | $h_cpu | ${h_ms:-?} | $(awk -v h="${h_cpu:-0}" -v m="$m_cpu" 'BEGIN { printf "%.1f", h - m }') | $verdict |"
done
echo
echo "$table"
[ ${#skipped[@]} -eq 0 ] || echo "Maude did not finish within ${MAUDE_TIMEOUT:-300} s: ${skipped[*]}"
echo "bench-rec-cpu: $((${#benches[@]} - ${#skipped[@]})) run, ${#slower[@]} slower than Maude or failed: ${slower[*]}; load $(cut -d' ' -f1-3 /proc/loadavg)"
