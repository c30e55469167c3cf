#!/usr/bin/env bash
# The "before" hybrid programs of scripts/bench-rec-small.sh: for each
# benchmark that DIR holds (hyb-NAME.o, by make rec-small-artifacts),
# hyb-NAME.base.cpp.gz and hyb-NAME.base.o, built as
# scripts/hybrid-artifacts.sh builds them but by the gpuc of commit BASE
# (built here from git archive), which bench-rec.sh links as it linked
# them before (nvcc -O3) and times beside the new ones in its quiet
# phase (Note [Short runs on a quiet machine] in bench-rec.sh).
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
for o in hyb-*.o; do
  b=${o#hyb-}
  b=${b%.o}
  f=rec/REC/$b.rec
  [[ $b != *.base ]] && [ -f "$f" ] || continue
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
  {
    "$tmp/gpuc-base" compile --checks="${GPUC_CHECKS:-on}" --emit=llvm-hybrid "$f" --print=summary --stats -o "hyb-$b.base.cpp" HYBRIDITER=16 &&
      "$tmp/gpuc-base" compile --checks="${GPUC_CHECKS:-on}" --emit=llvm --target=host "$f" --print=summary --stats -o "$tmp/$b.ll" HYBRIDITER=16 &&
      clang-16 -O2 -Wno-override-module -c "$tmp/$b.ll" -o "hyb-$b.base.o" &&
      gzip -9nf "hyb-$b.base.cpp" || { echo "rec-base-artifacts: $b: not built"; rm -f "hyb-$b.base.cpp" "hyb-$b.base.o"; }
  } &
done
wait
echo "rec-base-artifacts: $(ls hyb-*.base.cpp.gz 2> /dev/null | wc -l) programs of $base in $dir"
