#!/usr/bin/env bash
# The checks' cost, A/B on one GPU in one call (issues 17 and 20; Note
# [Stopping in PTX] in backends/cuda):
#
#   scripts/bench-checks-ab.sh prepare DIR [BASE_GPUC]   # here (Go): writes DIR
#   DIR/bench-checks-ab.sh run DIR                        # there (nvcc, a GPU)
#
# prepare writes every variant's .cu, compiled here by this checkout's gpuc
# ("on": checks on, the default; "off": --checks=off) and, where BASE_GPUC
# names another gpuc binary (main's, say /work/bis/gpuc-fee469a), by that
# one too ("base", checks on). transtree 26 also gets "dev": "on" with the
# checks word CHECKS=0 back in global memory (__device__, as before), to
# tell the two parts of the change apart, and "ret": the check helpers of
# e197a48 (a fault that returns where CHECKS=0, no stop after its call),
# the last form before the checks' cost rose. transtree 26, tak36,
# quicksort and carve also get "part": "on" without the checks of one
# part (trs_step; the sequential sorts; the scan), to say where the cost
# is. It copies carve-data, carve.sigs
# and this script beside them: the GPU machine needs no Go.
#
# run builds every .cu with nvcc -O3 -arch=$GPUC_ARCH (sm_90) -Xptxas -v,
# all at once (16 cores; the slowest, tree merge sort and tak36, take
# about 30 s), then runs each workload REPS times (3; 5 for transtree 26),
# its variants alternating, and prints a table: the median --time device
# time, the median time of the kernels that the host function main
# launched (--time's "kernels by the host function"; TRS only), each
# variant's cost against "off", and, from ptxas, the registers and the
# spill bytes of the kernels that matter. Every variant of a workload must
# print the same bytes (else "OUTPUTS DIFFER"). RUN_TIMEOUT (120 s)
# bounds a run; ONLY (a comma list of workload names) picks workloads.
# Expected length: about 1 minute of builds and 2 of runs.
set -uo pipefail
mode=${1:?usage: bench-checks-ab.sh prepare DIR [BASE_GPUC] | run DIR}
dir=${2:?usage: bench-checks-ab.sh prepare DIR [BASE_GPUC] | run DIR}

nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
pe_bytes=${PE_BYTES:-1073741824}

# name|source|gpuc compile flags|run arguments|runs. Sources are relative
# to the checkout; REC's tak36 comes from the shared corpus.
workloads=(
  "transtree26|examples/trs/transtree.trs|--input 'Expand($(nest 26 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000|5"
  "transtree22|examples/trs/transtree.trs|--input 'Expand($(nest 22 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000|3"
  "treemergesort23|examples/trs/treemergesort.trs|--input 'Gen($(nest 23 'Zero()' S), $list5)' --stats --print=summary|CAPACITY=1000000000|3"
  "quicksort|examples/fork/quicksort.fork||N=16777216 P=65536|3"
  "tak36|../shared/corpus/trs/rec/REC/tak36.rec|--print=summary||3"
  "carve|examples/fork/carve.fork|--input data --static sigs=carve.sigs|N=$pe_bytes GEN=0 PROCS=1048576 data=@carve-ab.img|3"
)

if [ "$mode" = prepare ]; then
  base=${3:-}
  here=$(cd "$(dirname "$0")/.." && pwd)
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
  cd "$here" || exit 1
  CGO_ENABLED=0 go build -o "$dir/gpuc" ./cmd/gpuc || exit 1
  CGO_ENABLED=0 go build -o "$dir/carve-data" ./scripts/carve-data || exit 1
  sigs=../shared/corpus/carving/signatures.tsv
  if [ -f "$sigs" ]; then "$dir/carve-data" sigs -tsv "$sigs" -o "$dir/carve.sigs"; else "$dir/carve-data" sigs -o "$dir/carve.sigs"; fi
  cp scripts/bench-checks-ab.sh "$dir/"
  git log -1 --format='%h %cd %s' --date=iso > "$dir/commit"
  [ -n "$base" ] && echo "base: $base ($("$base" version 2>/dev/null | head -1))" >> "$dir/commit"
  for w in "${workloads[@]}"; do
    IFS='|' read -r name src flags _ _ <<< "$w"
    [ -f "$src" ] || { echo "bench-checks-ab: $name: no $src, left out"; continue; }
    eval "fl=($flags)"
    # carve's static table is read where gpuc compiles: here, from DIR.
    [ "$name" = carve ] && fl=(--input data --static "sigs=$dir/carve.sigs")
    "$dir/gpuc" compile "$src" "${fl[@]}" -o "$dir/ab-$name-on.cu" 2> "$dir/ab-$name-on.report" || { cat "$dir/ab-$name-on.report"; exit 1; }
    "$dir/gpuc" compile --checks=off "$src" "${fl[@]}" -o "$dir/ab-$name-off.cu" 2> /dev/null || exit 1
    if [ -n "$base" ]; then
      "$base" compile "$src" "${fl[@]}" -o "$dir/ab-$name-base.cu" 2> /dev/null || echo "bench-checks-ab: $name: $base failed"
    fi
    # "part": "on" with the checks of one part of the program left out
    # (gpuc_idx and gpuc_divisor defined away between two functions), to
    # say where the checks' cost is.
    case $name in
    transtree26 | tak36) part="trs_step|trs_derive" ;;
    quicksort) part="seqSort_dev|main_coop1" ;;
    carve) part="scan_dev|mp_scan_blocks" ;;
    *) part= ;;
    esac
    if [ -n "$part" ]; then
      awk -v from="^// ${part%|*}: checks:" -v to="^// ${part#*|}: checks:" '
        $0 ~ from { print "#define gpuc_idx(i, n, id) (i)\n#define gpuc_divisor(b, id) (b)"; n++ }
        $0 ~ to { print "#undef gpuc_idx\n#undef gpuc_divisor"; n++ }
        { print } END { if (n != 2) exit 1 }' "$dir/ab-$name-on.cu" > "$dir/ab-$name-part.cu" || { echo "bench-checks-ab: $name: no $part"; exit 1; }
    fi
    if [ "$name" = transtree26 ]; then
      sed 's/^__constant__ int gpuc_checks = 1;$/__device__ int gpuc_checks = 1;/' "$dir/ab-$name-on.cu" > "$dir/ab-$name-dev.cu"
      cmp -s "$dir/ab-$name-on.cu" "$dir/ab-$name-dev.cu" && { echo "bench-checks-ab: no __constant__ gpuc_checks to turn back"; exit 1; }
      # "ret": e197a48's form, the last before the checks' cost rose: the
      # fault returns where CHECKS=0, else stops itself; no stop after it.
      perl -0pe 's/ && gpuc_checks\) \{\n    gpuc_device_fault\(([^)]*)\);\n    gpuc_device_stop\(\);\n  \}/) gpuc_device_fault($1);/g;
        s/(void gpuc_device_fault\(int id, long long a, long long b\) \{\n)/$1  if (!gpuc_checks) return;\n/;
        s/(gpuc_error_mirror\(id\);\n  \}\n)\}/$1  gpuc_device_stop();\n}/' "$dir/ab-$name-on.cu" > "$dir/ab-$name-ret.cu"
      [ "$(grep -c 'gpuc_device_stop();' "$dir/ab-$name-ret.cu")" = 2 ] || { echo "bench-checks-ab: the ret variant did not take"; exit 1; }
    fi
  done
  ls "$dir"/ab-*.cu | wc -l | xargs echo "bench-checks-ab: .cu files in $dir:"
  exit 0
fi

[ "$mode" = run ] || { echo "usage: bench-checks-ab.sh prepare DIR [BASE_GPUC] | run DIR"; exit 2; }
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
echo "bench-checks-ab: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1)"
cat commit
picked=()
for w in "${workloads[@]}"; do
  n=${w%%|*}
  [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$n,"* ]] || continue
  [ -f "ab-$n-on.cu" ] && picked+=("$w")
done
[ "${#picked[@]}" -gt 0 ] || { echo "bench-checks-ab: no workload"; exit 1; }

start=$(date +%s)
for w in "${picked[@]}"; do
  n=${w%%|*}
  for f in ab-"$n"-*.cu; do echo "${f%.cu}"; done
done | xargs -P "$(nproc)" -I{} sh -c 'nvcc -O3 -arch='"$arch"' -Xptxas -v -o {} {}.cu 2> {}.ptxas || { echo "bench-checks-ab: nvcc {} failed"; tail -3 {}.ptxas; }'
echo "bench-checks-ab: builds took $(($(date +%s) - start)) s"
if [ -x carve-data ] && [[ " ${picked[*]} " == *"carve|"* ]] && [ ! -f carve-ab.img ]; then
  ./carve-data image -sigs carve.sigs -n "$pe_bytes" -gap 1048576 -o carve-ab.img -expect carve-ab.expected > /dev/null
fi

ms() { grep -o 'device time [0-9.]* ms' "$1" | head -1 | grep -o '[0-9.]*'; }
mainms() { grep -o '[:,] main [0-9.]* ms' "$1" | head -1 | grep -o '[0-9.][0-9.]*'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'; }
cost() { awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b + 0 > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "" }'; }
# ptxas: the registers and spill bytes of the hot kernels and functions.
regs() {
  awk '/Compiling entry function/ { n = $0; sub(/^[^\x27]*\x27/, "", n); sub(/\x27.*/, "", n) }
       /Function properties for/ { n = $0; sub(/.*properties for /, "", n) }
       /bytes stack frame/ { sp[n] = $5 + $9; seen[n] = 1 }
       /Used [0-9]+ registers/ { r[n] = $5; seen[n] = 1 }
       END { for (k in seen) if (k ~ /trs_step|main_coop|trs_derive|trs_commit|main_r2_k1|partition|scan|carve|match/) printf "%s %s/%s ", substr(k, 1, 24), (k in r ? r[k] : "-"), (k in sp ? sp[k] : 0) }' "$1"
}

table="| workload | variant | device ms (median) | main's kernels ms | cost vs off (device) | cost vs off (main) | ptxas: kernel regs/spill bytes |"$'\n'"|---|---|---|---|---|---|---|"
for w in "${picked[@]}"; do
  IFS='|' read -r name _ _ args reps <<< "$w"
  vs=()
  for v in base on dev ret part off; do [ -x "ab-$name-$v" ] && vs+=("$v"); done
  for v in "${vs[@]}"; do : > "ab-$name-$v.ms"; : > "ab-$name-$v.main"; done
  same=yes
  for ((r = 0; r < reps; r++)); do
    for v in "${vs[@]}"; do
      # shellcheck disable=SC2086
      timeout "${RUN_TIMEOUT:-120}" ./"ab-$name-$v" $args --time > "ab-$name-$v.out" 2> "ab-$name-$v.err" || echo "bench-checks-ab: $name ($v) exited $?: $(head -2 "ab-$name-$v.err")"
      ms "ab-$name-$v.err" >> "ab-$name-$v.ms"
      mainms "ab-$name-$v.err" >> "ab-$name-$v.main"
      cmp -s "ab-$name-$v.out" "ab-$name-${vs[0]}.out" || same=no
    done
  done
  offd=n/a offm=n/a
  [ -x "ab-$name-off" ] && offd=$(median < "ab-$name-off.ms") offm=$(median < "ab-$name-off.main")
  for v in "${vs[@]}"; do
    d=$(median < "ab-$name-$v.ms") m=$(median < "ab-$name-$v.main")
    echo "$name $v: device $(tr '\n' ' ' < "ab-$name-$v.ms")ms; main $(tr '\n' ' ' < "ab-$name-$v.main")ms"
    note=""
    [ "$same" = yes ] || note=" (OUTPUTS DIFFER)"
    table+=$'\n'"| $name | $v | $d | $m | $(cost "$d" "$offd")$note | $(cost "$m" "$offm") | $(regs "ab-$name-$v.ptxas") |"
  done
done
echo
echo "$table"
echo "bench-checks-ab: done in $(($(date +%s) - start)) s"
