#!/usr/bin/env bash
# The checks' cost, A/B on one GPU in one call (issues 17 and 20; Note
# [Stopping in PTX] in backends/cuda):
#
#   scripts/bench-checks-ab.sh prepare DIR [BASE_GPUC]   # here (Go): writes DIR
#                                        (ONLY=... there too: those workloads)
#   DIR/bench-checks-ab.sh run DIR                        # there (nvcc, a GPU)
#
# prepare writes every variant's .cu, compiled here by this checkout's gpuc
# ("cont": checks on, the default, whose failed checks go on where Note
# [Going on after a fault] in backends/abi allows; "stop": the same
# program with every check stopping, as before that Note, by sed;
# "off": --checks=off) and, where BASE_GPUC
# names another gpuc binary (main's, say /work/bis/gpuc-fee469a), by that
# one too ("base", checks on). Some workloads also get variants of "cont"
# without the checks of one part (below: "part" for quicksort's
# sequential sorts and carve's scan, "coop" for quicksort's cooperative
# kernel, "p1".."p3" for Floyd-Warshall's three cooperative kernels;
# with ALL=1 also TRS's "step", "walk", "commit", "fold"), and, with
# ALL=1, "flag", whose failed check stores its number and calls nothing,
# "inl", the fault inlined, and "contcall", cont with the record of a
# fault called out of line, to say where the cost is. It copies
# carve-data, carve.sigs, chr_gen.c and this script beside them: the GPU
# machine needs no Go.
#
# run builds every .cu with nvcc -O3 -arch=$GPUC_ARCH (sm_90) -Xptxas -v,
# all at once (16 cores; the slowest, tree merge sort and tak36, take
# about 30 s), then runs each workload REPS times (3),
# its variants alternating, and prints a table: the median --time device
# time, the median time of the kernels that the host function main
# launched (--time's "kernels by the host function"; TRS only), each
# variant's cost against "off", and, from ptxas, the registers and the
# spill bytes of the kernels that matter. Every variant of a workload must
# print the same bytes (else "OUTPUTS DIFFER"). RUN_TIMEOUT (120 s)
# bounds a run; ONLY (a comma list of workload names) picks workloads:
# by default all but carve, whose 1 GiB image takes a minute to write.
# The fault cases of backends/cuda's tests (FAULTS=0 leaves them out) run
# first, each compared with `gpuc run`'s stdout, stderr and exit status.
# VARIANTS (a comma list, say cont,off) builds and runs only those
# variants; BUILD_TIMEOUT (600 s) bounds one nvcc build.
# Expected length: about 1.5 minutes of builds and 2.5 of runs. Issue 20's
# call of 2026-11-27 (wave 10), at most 4 minutes:
#   FAULTS=0 ONLY=tak36,fib32,evalexpr,quicksort,fw1024 VARIANTS=cont,off,part,p1 \
#     BUILD_TIMEOUT=150 RUN_TIMEOUT=30 timeout 235 DIR/bench-checks-ab.sh run DIR
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
  "transtree26|examples/trs/transtree.trs|--input 'Expand($(nest 26 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000|3"
  "transtree22|examples/trs/transtree.trs|--input 'Expand($(nest 22 'Zero()' Suc))' --stats --print=summary|CAPACITY=140000000|3"
  "treemergesort23|examples/trs/treemergesort.trs|--input 'Gen($(nest 23 'Zero()' S), $list5)' --stats --print=summary|CAPACITY=1000000000|3"
  "quicksort|examples/fork/quicksort.fork||N=16777216 P=65536|3"
  "tak36|../shared/corpus/trs/rec/REC/tak36.rec|--print=summary||3"
  "carve|examples/fork/carve.fork|--input data --static sigs=carve.sigs|N=$pe_bytes GEN=0 PROCS=1048576 data=@carve-ab.img|3"
  "fib32|../shared/corpus/trs/rec/REC/fib32.rec|--print=summary||3"
  "evalexpr|../shared/corpus/trs/rec/REC/evalexpr.rec|--print=summary||3"
  "benchexpr20|../shared/corpus/trs/rec/REC/benchexpr20.rec|--print=summary||3"
  "mergesort50|examples/trs/mergesort.trs|--stats --print=summary|CAPACITY=1048576|3"
  "fw1024|examples/chr/fw.chr|--query none.pl --input edge3_st --input edge3_born --input edge3_top --input edge3_a0 --input edge3_a1 --input edge3_a2|PROCS=4096|3"
)
# Floyd-Warshall's store, which chr_gen writes there (run).
fw_store="edge3_st=@data/edge3_st.bin edge3_born=@data/edge3_born.bin edge3_top=@data/edge3_top.bin edge3_a0=@data/edge3_a0.bin edge3_a1=@data/edge3_a1.bin edge3_a2=@data/edge3_a2.bin"

if [ "$mode" = prepare ]; then
  base=${3:-}
  here=$(cd "$(dirname "$0")/.." && pwd)
  mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
  cd "$here" || exit 1
  CGO_ENABLED=0 go build -o "$dir/gpuc" ./cmd/gpuc || exit 1
  CGO_ENABLED=0 go build -o "$dir/carve-data" ./scripts/carve-data || exit 1
  sigs=../shared/corpus/carving/signatures.tsv
  if [ -f "$sigs" ]; then "$dir/carve-data" sigs -tsv "$sigs" -o "$dir/carve.sigs"; else "$dir/carve-data" sigs -o "$dir/carve.sigs"; fi
  cp scripts/bench-checks-ab.sh scripts/bench/chr_gen.c "$dir/"
  printf 'true.\n' > "$dir/none.pl"
  git log -1 --format='%h %cd %s' --date=iso > "$dir/commit"
  [ -n "$base" ] && echo "base: $base ($("$base" version 2>/dev/null | head -1))" >> "$dir/commit"
  for w in "${workloads[@]}"; do
    IFS='|' read -r name src flags _ _ <<< "$w"
    [ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$name,"* ]] || continue
    [ -f "$src" ] || { echo "bench-checks-ab: $name: no $src, left out"; continue; }
    eval "fl=($flags)"
    # carve's static table is read where gpuc compiles: here, from DIR.
    [ "$name" = carve ] && fl=(--input data --static "sigs=$dir/carve.sigs")
    [ "$name" = fw1024 ] && fl[1]=$dir/none.pl
    "$dir/gpuc" compile "$src" "${fl[@]}" -o "$dir/ab-$name-cont.cu" 2> "$dir/ab-$name-cont.report" || { cat "$dir/ab-$name-cont.report"; exit 1; }
    # "stop": every check stops as before Note [Going on after a fault].
    sed '/__device__ inline/!{ s/gpuc_idx_go(/gpuc_idx(/g; s/gpuc_divisor_go(/gpuc_divisor(/g; }; /^ *gpuc_fault_halt();$/d' "$dir/ab-$name-cont.cu" > "$dir/ab-$name-stop.cu"
    cmp -s "$dir/ab-$name-cont.cu" "$dir/ab-$name-stop.cu" && echo "bench-checks-ab: $name: no check goes on"
    # The checks that go on, per function (Note [Going on after a fault]).
    awk '/^\/\/ [a-z_0-9]*: checks:/ { f = $2; sub(/:$/, "", f) } f != "" && /gpuc_idx_go\(|gpuc_divisor_go\(/ { n[f] += gsub(/gpuc_idx_go\(|gpuc_divisor_go\(/, "&") }
      f != "" && /gpuc_idx\(|gpuc_divisor\(/ { s[f] += gsub(/gpuc_idx\(|gpuc_divisor\(/, "&") }
      END { for (f in n) gt += n[f]; for (f in s) st += s[f]; printf "bench-checks-ab: %s: %d checks go on, %d stop;", name, gt, st
            for (f in n) if (n[f] > 2) printf " %s %d", f, n[f]; printf "\n" }' name="$name" "$dir/ab-$name-cont.cu"
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
    all=${ALL:-0}
    case $name in
    transtree26 | treemergesort23)
      parts=()
      [ "$all" = 1 ] && parts=("step=trs_step|trs_derive" "walk=trs_push|trs_step" "commit=trs_account|trs_small" "fold=trs_mark|trs_init") ;;
    tak36)
      parts=()
      [ "$all" = 1 ] && parts=("step=trs_step|trs_derive" "walk=trs_push|trs_step") ;;
    quicksort) parts=("part=seqSort_dev|main_coop1" "coop=main_coop1|main_r1_k1") ;;
    fw1024) parts=("p1=main_coop1|main_coop2" "p2=main_coop2|main_coop3" "p3=main_coop3|main_r1_k1") ;;
    carve) parts=("part=scan_dev|mp_scan_blocks") ;;
    *) parts=() ;;
    esac
    for pv in "${parts[@]}"; do
      v=${pv%%=*} part=${pv#*=}
      awk -v from="^// ${part%|*}: checks:" -v to="^// ${part#*|}: checks:" '
        $0 ~ from { print "#define gpuc_idx(i, n, id) (i)\n#define gpuc_divisor(b, id) (b)\n#define gpuc_idx_go(i, n, id) (i)\n#define gpuc_divisor_go(b, id) (b)"; n++ }
        $0 ~ to { print "#undef gpuc_idx\n#undef gpuc_divisor\n#undef gpuc_idx_go\n#undef gpuc_divisor_go"; n++ }
        { print } END { if (n != 2) exit 1 }' "$dir/ab-$name-cont.cu" > "$dir/ab-$name-$v.cu" || { echo "bench-checks-ab: $name: no $part"; exit 1; }
    done
    [ "$all" = 1 ] || continue
    # "contcall": cont with the record of a failed check called out of
    # line instead of inlined at each.
    perl -0pe 's/__device__ inline __attribute__\(\(always_inline\)\) void gpuc_device_record/__device__ __attribute__((noinline)) void gpuc_device_record/' "$dir/ab-$name-cont.cu" > "$dir/ab-$name-contcall.cu"
    cmp -s "$dir/ab-$name-cont.cu" "$dir/ab-$name-contcall.cu" && rm "$dir/ab-$name-contcall.cu"
    # "inl": the fault's body inlined at every failed check, no call.
    perl -0pe 's/__attribute__\(\(noinline\)\) void gpuc_device_fault/__forceinline__ void gpuc_device_fault/' "$dir/ab-$name-stop.cu" > "$dir/ab-$name-inl.cu"
    cmp -s "$dir/ab-$name-stop.cu" "$dir/ab-$name-inl.cu" && rm "$dir/ab-$name-inl.cu"
    # "flag": every check kept, its failure a store of its number to the
    # error word and no call (the program then goes on with the bad
    # index: for the A/B only, never a fault-free run's difference), to
    # tell the compare's cost from the noreturn call's.
    case $name in
    transtree26 | treemergesort23 | tak36)
      perl -0pe 's/(inline long long gpuc_idx\(long long i, long long n, int id\) \{\n  if \(__builtin_expect\(\(unsigned long long\)i >= \(unsigned long long\)n, 0\) && gpuc_checks\)) gpuc_device_fault\(id, i, n\);/$1 gpuc_error = id;/' "$dir/ab-$name-stop.cu" > "$dir/ab-$name-flag.cu"
      cmp -s "$dir/ab-$name-stop.cu" "$dir/ab-$name-flag.cu" && { echo "bench-checks-ab: $name: the flag variant did not take"; exit 1; } ;;
    esac
  done
  # The fault cases of backends/cuda's tests (a line of arguments each in
  # NAME.cases), whose checks now go on: each must print what `gpuc run`
  # prints, on stdout and stderr, and exit as it does.
  for src in backends/cuda/testdata/{checks,hoist,below,facts,offsets,goon}.kir backends/cuda/testdata/coop/fault.kir; do
    name=$(basename "${src%.kir}")
    "$dir/gpuc" compile "$src" -o "$dir/fault-$name.cu" 2> /dev/null || { echo "bench-checks-ab: gpuc compile $src failed"; exit 1; }
    k=0
    while read -r line; do
      k=$((k + 1))
      echo "$line" > "$dir/fault-$name.case$k.args"
      status=0
      # shellcheck disable=SC2086
      "$dir/gpuc" run "$src" $line > "$dir/fault-$name.case$k.expected" 2> "$dir/fault-$name.case$k.stderr" || status=$?
      echo "$status" > "$dir/fault-$name.case$k.status"
    done < "${src%.kir}.cases"
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
  only=${ONLY:-transtree26,transtree22,treemergesort23,mergesort50,tak36,fib32,evalexpr,benchexpr20,quicksort,fw1024}
  [[ ",$only," == *",$n,"* ]] || continue
  [ -f "ab-$n-cont.cu" ] && picked+=("$w")
done
[ "${#picked[@]}" -gt 0 ] || { echo "bench-checks-ab: no workload"; exit 1; }

start=$(date +%s)
{
  [ "${FAULTS:-1}" = 0 ] || for f in fault-*.cu; do [ -f "$f" ] && echo "${f%.cu}"; done
  for w in "${picked[@]}"; do
    n=${w%%|*}
    for f in ab-"$n"-*.cu; do
      v=${f%.cu} v=${v#ab-"$n"-}
      [ -z "${VARIANTS:-}" ] || [[ ",$VARIANTS," == *",$v,"* ]] && echo "${f%.cu}"
    done
  done
} | xargs -P "$(nproc)" -I{} sh -c 'timeout '"${BUILD_TIMEOUT:-600}"' nvcc -O3 -arch='"$arch"' -Xptxas -v -o {} {}.cu 2> {}.ptxas || { echo "bench-checks-ab: nvcc {} failed or passed BUILD_TIMEOUT"; tail -3 {}.ptxas; }'
echo "bench-checks-ab: builds took $(($(date +%s) - start)) s"
if [[ " ${picked[*]} " == *"fw1024|"* ]] && { [ -x chr_gen ] || gcc -O2 -o chr_gen chr_gen.c; }; then
  mkdir -p data && fw_cap=$(./chr_gen fw 1024 data) || echo "bench-checks-ab: chr_gen failed"
fi
if [ -x carve-data ] && [[ " ${picked[*]} " == *"carve|"* ]] && [ ! -f carve-ab.img ]; then
  ./carve-data image -sigs carve.sigs -n "$pe_bytes" -gap 1048576 -o carve-ab.img -expect carve-ab.expected > /dev/null
fi

# The fault cases first: same stdout, stderr and exit status as `gpuc run`.
fails=0 cases=0
for a in fault-*.case*.args; do
  [ -f "$a" ] && [ "${FAULTS:-1}" != 0 ] || continue
  c=${a%.args} p=${a%%.case*}
  [ -x "$p" ] || { echo "bench-checks-ab: $p not built"; fails=$((fails + 1)); continue; }
  cases=$((cases + 1)) status=0
  # shellcheck disable=SC2046
  timeout 60 ./"$p" $(cat "$a") > "$c.out" 2> "$c.err" || status=$?
  if ! cmp -s "$c.out" "$c.expected" || ! cmp -s "$c.err" "$c.stderr" || [ "$status" != "$(cat "$c.status")" ]; then
    fails=$((fails + 1))
    echo "bench-checks-ab: FAULT CASE DIFFERS: $p $(cat "$a"): exit $status, want $(cat "$c.status"); stderr $(head -c 300 "$c.err"), want $(head -c 300 "$c.stderr")"
  fi
done
[ "$cases" = 0 ] || echo "bench-checks-ab: fault cases: $cases run, $fails differ"

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
  [ "$name" = fw1024 ] && args="CAP_edge3=${fw_cap:-0} $args $fw_store"
  vs=()
  for v in base cont stop contcall inl step walk commit fold flag part coop p1 p2 p3 off; do [ -x "ab-$name-$v" ] && vs+=("$v"); done
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
