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
# one too ("base", checks on). Some workloads also get variants of "on"
# without the checks of one part (below: "step", "walk", "commit",
# "fold"; "part" for quicksort's sequential sorts and carve's scan), and
# "flag", whose failed check stores its number and calls nothing, to say
# where the cost is. It copies carve-data, carve.sigs
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
  "fib32|../shared/corpus/trs/rec/REC/fib32.rec|--print=summary||3"
  "evalexpr|../shared/corpus/trs/rec/REC/evalexpr.rec|--print=summary||3"
  "benchexpr20|../shared/corpus/trs/rec/REC/benchexpr20.rec|--print=summary||3"
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
    # Variants of "on" with the checks of one part of the program left
    # out (gpuc_idx and gpuc_divisor defined away between two functions'
    # "checks:" lines), to say where the checks' cost is: VARIANT=FROM|TO.
    # TRS: "step", the rewriting step (trs_step); "walk", the helpers
    # that trs_step calls (push, release, free, reuse, eq, collapse,
    # enlist, wait, leave); "commit", trs_account and trs_commit; "fold",
    # the between-iteration passes (mark, fold, settle).
    case $name in
    transtree26 | treemergesort23)
      parts=("step=trs_step|trs_derive" "walk=trs_push|trs_step" "commit=trs_account|trs_small" "fold=trs_mark|trs_init") ;;
    tak36) parts=("step=trs_step|trs_derive" "walk=trs_push|trs_step") ;;
    quicksort) parts=("part=seqSort_dev|main_coop1") ;;
    carve) parts=("part=scan_dev|mp_scan_blocks") ;;
    *) parts=() ;;
    esac
    for pv in "${parts[@]}"; do
      v=${pv%%=*} part=${pv#*=}
      awk -v from="^// ${part%|*}: checks:" -v to="^// ${part#*|}: checks:" '
        $0 ~ from { print "#define gpuc_idx(i, n, id) (i)\n#define gpuc_divisor(b, id) (b)"; n++ }
        $0 ~ to { print "#undef gpuc_idx\n#undef gpuc_divisor"; n++ }
        { print } END { if (n != 2) exit 1 }' "$dir/ab-$name-on.cu" > "$dir/ab-$name-$v.cu" || { echo "bench-checks-ab: $name: no $part"; exit 1; }
    done
    # "inl": the fault's body inlined at every failed check, no call.
    perl -0pe 's/__attribute__\(\(noinline\)\) void gpuc_device_fault/__forceinline__ void gpuc_device_fault/' "$dir/ab-$name-on.cu" > "$dir/ab-$name-inl.cu"
    cmp -s "$dir/ab-$name-on.cu" "$dir/ab-$name-inl.cu" && rm "$dir/ab-$name-inl.cu"
    # "flag": every check kept, its failure a store of its number to the
    # error word and no call (the program then goes on with the bad
    # index: for the A/B only, never a fault-free run's difference), to
    # tell the compare's cost from the noreturn call's.
    case $name in
    transtree26 | treemergesort23 | tak36)
      perl -0pe 's/(inline long long gpuc_idx\(long long i, long long n, int id\) \{\n  if \(__builtin_expect\(\(unsigned long long\)i >= \(unsigned long long\)n, 0\) && gpuc_checks\)) gpuc_device_fault\(id, i, n\);/$1 gpuc_error = id;/' "$dir/ab-$name-on.cu" > "$dir/ab-$name-flag.cu"
      cmp -s "$dir/ab-$name-on.cu" "$dir/ab-$name-flag.cu" && { echo "bench-checks-ab: $name: the flag variant did not take"; exit 1; } ;;
    esac
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
  for v in base on inl step walk commit fold flag part off; do [ -x "ab-$name-$v" ] && vs+=("$v"); done
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
