#!/usr/bin/env bash
# The remote share of a TRS world program (issue 19: at most 1% of all
# accesses), from the interpreter's counters (gpuc run --json), which are
# deterministic: no GPU needed.
#
#   scripts/world-share.sh [GPUC] [TMS_DEPTH] [TT_DEPTH]
#
# For tree merge sort and the transformation tree at the depths given
# (10 and 12), on 2 and 4 simulated devices, it prints the local and
# remote accesses of the program placed by owner (--world, Note [TRS on
# several devices]) and, for comparison, of today's program spread by
# index (--passes=distribute-world,default), and checks that the world
# program's trace (iteration, rewritten, rewrites, pending) is one
# device's.
set -uo pipefail
gpuc=${1:-gpuc}
dtms=${2:-10}
dtt=${3:-12}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
share() { # FILE: local, remote and the remote share from a --json line
  awk '{ for (i = 1; i <= NF; i++) { if ($i ~ /"local accesses"/) l = $(i + 1); if ($i ~ /"remote accesses"/) r = $(i + 1) } }
    END { gsub(/[^0-9]/, "", l); gsub(/[^0-9]/, "", r); if (l + r > 0) printf "%d local, %d remote: %.3f%% remote", l, r, 100 * r / (l + r); else printf "n/a" }' FS='[:,]' "$1"
}
echo "world-share: $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for w in "treemergesort.trs Gen($(nest "$dtms" 'Zero()' S), $list5) depth-$dtms" "transtree.trs Expand($(nest "$dtt" 'Zero()' Suc)) depth-$dtt"; do
  file=${w%% *}
  rest=${w#* }
  label=${rest##* }
  input=${rest% *}
  common=("$here/examples/trs/$file" --input "$input" --capacity 1048576 --print=summary --stats)
  "$gpuc" run "${common[@]}" --trace "$tmp/one.csv" > "$tmp/one.out" 2> "$tmp/one.err" || { echo "$file: one device failed"; cat "$tmp/one.err"; exit 1; }
  echo "$file $label: $(head -1 "$tmp/one.out"), $(grep '^rewrites' "$tmp/one.err")"
  for k in 2 4; do
    start=$(date +%s.%N)
    "$gpuc" run --world --devices "$k" "${common[@]}" --json --trace "$tmp/w.csv" > "$tmp/w.out" 2> "$tmp/w.json" || { echo "  world on $k failed"; tail -3 "$tmp/w.json"; exit 1; }
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    same="trace and output as one device's"
    cmp -s "$tmp/one.out" "$tmp/w.out" || same="OUTPUT DIFFERS"
    cut -d, -f1-4 "$tmp/one.csv" | cmp -s - <(cut -d, -f1-4 "$tmp/w.csv") || same="TRACE DIFFERS"
    echo "  --world on $k: $(share "$tmp/w.json") ($same; ${secs%???????} s)"
    "$gpuc" run --passes=distribute-world,default --devices "$k" "${common[@]}" --json > /dev/null 2> "$tmp/d.json" || { echo "  by index on $k failed"; tail -3 "$tmp/d.json"; continue; }
    echo "  by index (distribute-world) on $k: $(share "$tmp/d.json")"
  done
done
