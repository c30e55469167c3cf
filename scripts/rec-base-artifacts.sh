#!/usr/bin/env bash
# The "before" hybrid programs of scripts/bench-rec-small.sh: for each
# benchmark that DIR holds (hyb-NAME.o, by make rec-small-artifacts),
# hyb-NAME.base.cpp.gz, the same --emit=llvm-hybrid compile by the gpuc
# of commit BASE (built here from git archive), which bench-rec.sh links
# as it linked them before (nvcc -O3) and times beside the new ones in
# its quiet phase. The host kernels (hyb-NAME.o) are shared: the change
# measured is the C++ side's (Note [No C++ library at run time] in
# backends/cuda/cpu.h); the script checks that both gpucs print the
# same kernels for the first benchmark.
#
#   scripts/rec-base-artifacts.sh DIR BASE
set -uo pipefail
dir=${1:?usage: rec-base-artifacts.sh DIR BASE}
base=${2:?usage: rec-base-artifacts.sh DIR BASE}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && git archive "$base") | tar -x -C "$tmp" || exit 1
(cd "$tmp" && CGO_ENABLED=0 go build -o gpuc-base ./cmd/gpuc) || exit 1
cd "$dir" || exit 1
checked=0
for o in hyb-*.o; do
  b=${o#hyb-}
  b=${b%.o}
  f=rec/REC/$b.rec
  [ -f "$f" ] || continue
  if [ $checked = 0 ]; then
    "$tmp/gpuc-base" compile --emit=llvm --target=host "$f" --print=summary --stats -o "$tmp/base.ll" HYBRIDITER=16 &&
      ./gpuc compile --emit=llvm --target=host "$f" --print=summary --stats -o "$tmp/new.ll" HYBRIDITER=16 || exit 1
    cmp -s "$tmp/base.ll" "$tmp/new.ll" || { echo "rec-base-artifacts: $b: the host kernels of $base differ from this gpuc's; build them apart"; exit 1; }
    checked=1
  fi
  "$tmp/gpuc-base" compile --checks="${GPUC_CHECKS:-on}" --emit=llvm-hybrid "$f" --print=summary --stats -o "hyb-$b.base.cpp" HYBRIDITER=16 &&
    gzip -9nf "hyb-$b.base.cpp" || echo "rec-base-artifacts: $b: not built"
done
echo "rec-base-artifacts: $(ls hyb-*.base.cpp.gz 2> /dev/null | wc -l) programs of $base in $dir"
