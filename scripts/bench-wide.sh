#!/usr/bin/env bash
# The TRS step's kernel rates, A/B between two gpuc builds, checks on and
# off, in one GPU call (issues 17 and 20; Note [Wide and one-processor
# steps] in frontends/trs):
#
#   make wide-artifacts [WIDE_DIR=wide-artifacts] [WIDE_BASE=efc5f21]   # here (Go)
#   DIR/bench-wide.sh run DIR                                           # there (nvcc, a GPU)
#
# prepare (scripts/bench-wide.sh prepare DIR BASE_GPUC, which the make
# target calls with BASE_GPUC built from WIDE_BASE, BASE_LABEL its
# commit) writes, for transtree
# 22 and 26, tree merge sort 23 and merge sort of 50, four .cu files:
# "base-on" and "base-off" by BASE_GPUC (checks on, as built by default,
# and --checks=off), "new-on" and "new-off" by this checkout's gpuc.
#
# run builds them all at once with nvcc -O3 -arch=$GPUC_ARCH (sm_90)
# -Xptxas -v (16 cores), runs each workload REPS (3) times, its four
# variants alternating, and prints each run's main's kernels ms and
# device ms, then a table: the medians, each variant's change against
# base-on, and ptxas's registers/spill bytes of the hot kernels and
# functions. Every variant must print the same bytes (else OUTPUTS
# DIFFER: the normal form's summary) and the same rewrite count (else
# REWRITE COUNTS DIFFER). ONLY (a
# comma list) picks workloads; RUN_TIMEOUT (60 s) bounds a run; NVCC
# (nvcc) names the compiler. Then, where nsys is there (NSYS=0 leaves it
# out), one run each of transtree 26's base-on and new-on under nsys
# (NSYS_ONLY, a comma list, picks others), for the time of each kernel. Expected length: about 1.5 minutes of
# builds (tree merge sort's and merge sort's are the slowest) and 30 s
# of runs, 20 of nsys.
set -uo pipefail
mode=${1:?usage: bench-wide.sh prepare DIR BASE_GPUC | run DIR}
dir=${2:?usage: bench-wide.sh prepare DIR BASE_GPUC | run DIR}

nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"

# name|source|gpuc compile flags|run arguments (those of
# scripts/bench-checks-ab.sh).
workloads=(
  "transtree26|examples/trs/transtree.trs|--input 'Expand($(nest 26 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000"
  "transtree22|examples/trs/transtree.trs|--input 'Expand($(nest 22 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000"
  "treemergesort23|examples/trs/treemergesort.trs|--input 'Gen($(nest 23 'Zero()' S), $list5)' --stats --print=summary|CAPACITY=1000000000"
  "mergesort50|examples/trs/mergesort.trs|--stats --print=summary|CAPACITY=1048576"
)
variants=(base-on new-on base-off new-off)

if [ "$mode" = prepare ]; then
  base=${3:?usage: bench-wide.sh prepare DIR BASE_GPUC}
  here=$(cd "$(dirname "$0")/.." && pwd)
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
  cd "$here" || exit 1
  CGO_ENABLED=0 go build -o "$dir/gpuc" ./cmd/gpuc || exit 1
  cp scripts/bench-wide.sh "$dir/"
  {
    echo "new: $(git log -1 --format='%h %cd %s' --date=iso)"
    echo "base: ${BASE_LABEL:-$base}"
  } > "$dir/commit"
  for w in "${workloads[@]}"; do
    IFS='|' read -r name src flags _ <<< "$w"
    eval "fl=($flags)"
    for v in "${variants[@]}"; do
      g=$dir/gpuc
      [ "${v%-*}" = base ] && g=$base
      c=()
      [ "${v#*-}" = off ] && c=(--checks=off)
      "$g" compile "${c[@]}" "$src" "${fl[@]}" -o "$dir/w-$name-$v.cu" 2> "$dir/w-$name-$v.report" || { echo "bench-wide: $name $v: gpuc failed"; cat "$dir/w-$name-$v.report"; exit 1; }
    done
  done
  ls "$dir"/w-*.cu | wc -l | xargs echo "bench-wide: .cu files in $dir:"

  exit 0
fi

[ "$mode" = run ] || { echo "usage: bench-wide.sh prepare DIR BASE_GPUC | run DIR"; exit 2; }
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
nvcc=${NVCC:-nvcc}
echo "bench-wide: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null | head -1), $("$nvcc" --version | tail -1)"
cat commit
picked=()
for w in "${workloads[@]}"; do
  n=${w%%|*}
  [[ ",${ONLY:-transtree26,transtree22,treemergesort23,mergesort50}," == *",$n,"* ]] || continue
  [ -f "w-$n-new-on.cu" ] && picked+=("$w")
done
[ "${#picked[@]}" -gt 0 ] || { echo "bench-wide: no workload"; exit 1; }

start=$(date +%s)
for w in "${picked[@]}"; do
  n=${w%%|*}
  for v in "${variants[@]}"; do echo "w-$n-$v"; done
done | xargs -P "$(nproc)" -I{} sh -c "$nvcc"' -O3 -arch='"$arch"' -Xptxas -v -o {} {}.cu 2> {}.ptxas || { echo "bench-wide: nvcc {} failed"; tail -3 {}.ptxas; }'
echo "bench-wide: builds took $(($(date +%s) - start)) s"

ms() { grep -o 'device time [0-9.]* ms' "$1" | head -1 | grep -o '[0-9.][0-9.]*'; }
mainms() { grep -o '[:,] main [0-9.]* ms' "$1" | head -1 | grep -o '[0-9.][0-9.]*'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'; }
cost() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b + 0 > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "" }'; }
# ptxas: the registers and spill bytes of the hot kernels and functions.
regs() {
  awk '/Compiling entry function/ { n = $0; sub(/^[^\x27]*\x27/, "", n); sub(/\x27.*/, "", n) }
       /Function properties for/ { n = $0; sub(/.*properties for /, "", n) }
       /bytes stack frame/ { sp[n] = $5 + $9; seen[n] = 1 }
       /Used [0-9]+ registers/ { r[n] = $5; seen[n] = 1 }
       END { for (k in seen) if (k ~ /trs_step|main_coop|main_stride|trs_derive|main_r2_k1|trs_small/) printf "%s %s/%s ", substr(k, 1, 24), (k in r ? r[k] : "-"), (k in sp ? sp[k] : 0) }' "$1"
}

table="| workload | variant | main's kernels ms (median) | device ms (median) | main vs base-on | main vs the same build's off | ptxas: regs/spill bytes |"$'\n'"|---|---|---|---|---|---|---|"
for w in "${picked[@]}"; do
  IFS='|' read -r name _ _ args <<< "$w"
  vs=()
  for v in "${variants[@]}"; do [ -x "w-$name-$v" ] && vs+=("$v"); done
  [ "${#vs[@]}" -gt 0 ] || continue
  for v in "${vs[@]}"; do : > "w-$name-$v.ms"; : > "w-$name-$v.main"; done
  same=yes rw=yes
  for ((r = 0; r < ${REPS:-3}; r++)); do
    for v in "${vs[@]}"; do
      # shellcheck disable=SC2086
      timeout "${RUN_TIMEOUT:-60}" ./"w-$name-$v" $args --time > "w-$name-$v.out" 2> "w-$name-$v.err" || echo "bench-wide: $name ($v) exited $?: $(head -2 "w-$name-$v.err")"
      ms "w-$name-$v.err" >> "w-$name-$v.ms"
      mainms "w-$name-$v.err" >> "w-$name-$v.main"
      cmp -s "w-$name-$v.out" "w-$name-${vs[0]}.out" || same=no
      grep '^rewrites:' "w-$name-$v.err" > "w-$name-$v.rw"
      cmp -s "w-$name-$v.rw" "w-$name-${vs[0]}.rw" || rw=no
    done
  done
  basem=$(median < "w-$name-${vs[0]}.main")
  for v in "${vs[@]}"; do
    d=$(median < "w-$name-$v.ms") m=$(median < "w-$name-$v.main")
    offm=n/a
    [ -f "w-$name-${v%-*}-off.main" ] && offm=$(median < "w-$name-${v%-*}-off.main")
    echo "$name $v: main $(tr '\n' ' ' < "w-$name-$v.main")ms; device $(tr '\n' ' ' < "w-$name-$v.ms")ms"
    note=""
    [ "$same" = yes ] || note=" (OUTPUTS DIFFER)"
    [ "$rw" = yes ] || note+=" (REWRITE COUNTS DIFFER)"
    table+=$'\n'"| $name | $v | $m$note | $d | $(cost "$m" "$basem") | $(cost "$m" "$offm") | $(regs "w-$name-$v.ptxas") |"
  done
  { head -c 300 "w-$name-${vs[0]}.out"; cat "w-$name-${vs[0]}.rw"; } | sed 's/^/  out: /'
done
echo
echo "$table"

# Where main's time goes, kernel by kernel (trs_small's iterations of
# low parallelism against the wide kernels'): one run under nsys of the
# base-on and new-on of each workload of NSYS_ONLY (transtree26), where
# nsys is on PATH and NSYS is not 0. Last, so that a call cut short
# has printed the table already.
if [ "${NSYS:-1}" != 0 ] && command -v nsys > /dev/null; then
  for w in "${picked[@]}"; do
    IFS='|' read -r name _ _ args <<< "$w"
    [[ ",${NSYS_ONLY:-transtree26}," == *",$name,"* ]] || continue
    for v in base-on new-on; do
      [ -x "w-$name-$v" ] || continue
      # shellcheck disable=SC2086
      timeout 60 nsys profile --force-overwrite true -o "w-$name-$v" ./"w-$name-$v" $args > /dev/null 2>&1 || { echo "bench-wide: nsys $name $v failed"; continue; }
      echo "bench-wide: $name $v, kernels by nsys:"
      # CSV: "Time (%)","Total Time (ns)","Instances",...,"Name"; names
      # hold commas, so fields split at '","'.
      # The report's name before nsys 2023: gpukernsum.
      for r in cuda_gpu_kern_sum gpukernsum; do
        timeout 60 nsys stats -r "$r" -f csv "w-$name-$v.nsys-rep" 2> /dev/null |
          awk -F'","' '/^"[0-9.]+","/ { k = $NF; sub(/"$/, "", k); sub(/\(.*/, "", k); printf "  %s: %.3f ms in %s launches\n", k, $2 / 1e6, $3 }' | head -8 > "w-$name-$v.kern"
        [ -s "w-$name-$v.kern" ] && break
      done
      cat "w-$name-$v.kern"
    done
  done
fi
echo "bench-wide: done in $(($(date +%s) - start)) s"
