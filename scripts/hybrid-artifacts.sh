#!/usr/bin/env bash
# The hybrid programs of the TRS benchmarks, built here for the GPU
# machine, which may have no LLVM (needs the gpuc of DIR, llc-16 and
# clang-16): for each workload of scripts/bench-trs.sh and each REC
# benchmark under DIR/rec/REC, hyb-NAME.cpp (gpuc compile
# --emit=llvm-hybrid, the PTX embedded) and hyb-NAME.o (the kernels of
# --emit=llvm --target=host, compiled by clang-16), both compiled with
# --print=summary --stats as the scripts' other programs are, the hybrid
# program with a hybrid point every 16 iterations at most (HYBRIDITER,
# frontends/trs/lower.go). There,
# scripts/bench-trs.sh and bench-rec.sh link each with
#   g++ -O3 -Wl,--as-needed -I$CUDA_HOME/include -o hyb-NAME hyb-NAME.cpp hyb-NAME.o -lpthread -ldl
# (Note [Hybrid migration] in backends/cuda/hybrid.h).
#
#   scripts/hybrid-artifacts.sh DIR
set -uo pipefail
dir=${1:?usage: hybrid-artifacts.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$dir" || exit 1
gpuc=./gpuc
[ -x "$gpuc" ] || { echo "hybrid-artifacts: no $dir/gpuc"; exit 1; }
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
# build NAME FILE [ARGS...]: hyb-NAME.cpp and hyb-NAME.o.
build() {
  local name=$1 file=$2
  shift 2
  # TRS_ONLY="a b" builds only those of the TRS workloads (set and empty:
  # none), as REC_ONLY does for the REC benchmarks.
  if [ -n "${TRS_ONLY+set}" ] && [[ $file != rec/* ]] && [[ " $TRS_ONLY " != *" $name "* ]]; then return 0; fi
  "$gpuc" compile --checks="${GPUC_CHECKS:-on}" --emit=llvm-hybrid "$file" "$@" --print=summary --stats -o "hyb-$name.cpp" HYBRIDITER=16 &&
    "$gpuc" compile --checks="${GPUC_CHECKS:-on}" --emit=llvm --target=host "$file" "$@" --print=summary --stats -o "hyb-$name.ll" HYBRIDITER=16 &&
    clang-16 -O2 -Wno-override-module -c "hyb-$name.ll" -o "hyb-$name.o" && rm -f "hyb-$name.ll"
}
for f in transtree treemergesort mergesort; do
  [ -f "$f.trs" ] || cp "$root/examples/trs/$f.trs" .
done
build transtree22 transtree.trs --input "Expand($(nest 22 'Zero()' Suc))" || exit 1
build transtree26 transtree.trs --input "Expand($(nest 26 'Zero()' Suc))" || exit 1
build treemergesort23 treemergesort.trs --input "Gen($(nest 23 'Zero()' S), $list5)" || exit 1
build treemergesort16 treemergesort.trs --input "Gen($(nest 16 'Zero()' S), $list5)" || exit 1
build mergesort50 mergesort.trs || exit 1
# The REC benchmarks, a build per core at once (about 10 s of CPU each).
if [ -d rec/REC ]; then
  for f in rec/REC/*.rec; do
    b=$(basename "$f" .rec)
    # REC_ONLY="a b" builds only those, as bench-rec.sh runs them.
    if [ -n "${REC_ONLY:-}" ] && [[ " $REC_ONLY " != *" $b "* ]]; then continue; fi
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
    # Why a benchmark is not built (several EVAL terms) goes to
    # hyb-NAME.err, for bench-rec.sh.
    { build "$b" "$f" 2> "hyb-$b.err" || { echo "hybrid-artifacts: $b: not built: $(head -1 "hyb-$b.err")"; }; } &
  done
  wait
fi
echo "hybrid-artifacts: $(ls hyb-*.o | wc -l) programs in $dir"
