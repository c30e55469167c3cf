#!/usr/bin/env bash
# The checks' cost on the GPU (Note [Checks], Note [Check placement] in
# backends/abi), by workload family:
#
#   make bench-artifacts                       # here: static gpuc, sources, generators
#   PART=trs,rec scripts/bench-checks.sh DIR   # there (needs nvcc, gcc and a GPU)
#
# PART (a comma list of fork, chr, trs, rec and pe; all by default) picks
# the families, so that each call fits a device call's limit: all of
# them did not fit 280 s (fork, chr and trs did). COUNTS=1 only
# compiles, here or there, and prints each workload's checks (no nvcc,
# no GPU): the table of "The checks that remain" in docs/BENCHMARKS.md.
#
# Each workload is compiled twice by the static gpuc, with --checks=on
# (the default) and --checks=off, both built with nvcc in parallel, then
# run REPS times each (3), alternating on and off on the same warm GPU.
# The figure is the program's own --time device time (the first "X ms"
# on stderr), the median of the runs; both variants must print the same.
# The table gives each workload's cost, (on - off) / off. Workloads:
# Fork sieve, matmul and quicksort (bench-fork's sizes), CHR Floyd-Warshall
# and primes (bench-chr's), TRS transtree and treemergesort (bench-trs's
# smaller ones), a REC subset (REC_ONLY, default bench-rec's fast ones,
# where rec/REC is there) and the
# partial-evaluation scan of carve.fork, specialized (bench-pe's, on an
# image of PE_BYTES, 1 GiB). RUN_TIMEOUT (120 s) bounds each run.
set -uo pipefail
dir=${1:?usage: bench-checks.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
reps=${REPS:-3}
gpuc=./gpuc
parts=",${PART:-fork,chr,trs,rec,pe},"
counts() {
  sed -n 's|^// .*: checks: \([0-9]*\) kept (\([0-9]*\) in loops), \([0-9]*\) hoisted, \([0-9]*\) elided\(, going on\)\{0,1\}$|\1 \2 \3 \4|p' "$1" |
    awk '{ k += $1; l += $2; h += $3; e += $4 } END { printf "%d kept (%d in loops), %d hoisted, %d elided", k, l, h, e }'
}
[ "${COUNTS:-0}" = 1 ] || echo "bench-checks: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1)"

nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
store() { local c=$1; shift; printf '%s' "${c}_st=@data/${c}_st.bin ${c}_born=@data/${c}_born.bin ${c}_top=@data/${c}_top.bin"; for a in "$@"; do printf ' %s' "${c}_a$a=@data/${c}_a$a.bin"; done; }
chr_in() { local c=$1; shift; printf -- '--input %s_st --input %s_born --input %s_top ' "$c" "$c" "$c"; for a in "$@"; do printf -- '--input %s_a%s ' "$c" "$a"; done; }

# name|source|compile flags|run arguments
workloads=(
  "fork-sieve|sieve.fork||N=100000000 PROCS=131072"
  "fork-matmul|matmul.fork||N=2048"
  "fork-quicksort|quicksort.fork||N=16777216 P=65536"
  "chr-primes|primes.chr|--query primes6.pl|CAP_range3=2097152 CAP_prime1=1048576 CAP_multiples3=8388608 CAP_composite1=8388608"
  "trs-transtree22|transtree.trs|--input 'Expand($(nest 22 'Zero()' Suc))' --print=summary|CAPACITY=9000000"
  "trs-treemergesort20|treemergesort.trs|--input 'Gen($(nest 20 'Zero()' S), $list5)' --print=summary|CAPACITY=200000000"
)
if [[ $parts == *,chr,* ]] && { [ -x chr_gen ] || gcc -O2 -o chr_gen chr_gen.c 2>/dev/null; }; then
  mkdir -p data && m=$(./chr_gen fw 1024 data 2>/dev/null)
  [ -n "${m:-}" ] && workloads+=("chr-fw1024|fw.chr|--query none.pl $(chr_in edge3 0 1 2)|CAP_edge3=$m PROCS=4096 $(store edge3 0 1 2)")
fi
if [ -d rec/REC ]; then
  for b in ${REC_ONLY:-benchexpr20 evalexpr fib32 tak36}; do
    [ -f "rec/REC/$b.rec" ] && workloads+=("rec-$b|rec/REC/$b.rec|--print=summary|")
  done
fi
pe_bytes=${PE_BYTES:-1073741824}
if [[ $parts == *,pe,* ]] && [ -x carve-data ] && [ -f carve.sigs ]; then
  [ -f carve-checks.img ] || ./carve-data image -sigs carve.sigs -n "$pe_bytes" -gap 1048576 -o carve-checks.img -expect carve-checks.expected > /dev/null
  workloads+=("pe-carve|carve.fork|--input data --static sigs=carve.sigs|N=$pe_bytes GEN=0 PROCS=1048576 data=@carve-checks.img")
fi

picked=()
for w in "${workloads[@]}"; do
  [[ $parts == *",${w%%-*},"* ]] && picked+=("$w")
done
workloads=("${picked[@]}")
[ ${#workloads[@]} -gt 0 ] || { echo "bench-checks: no workload in PART=${PART:-}"; exit 1; }
echo "bench-checks: PART=${PART:-all}: ${#workloads[@]} workloads"

for w in "${workloads[@]}"; do
  IFS='|' read -r name src flags _ <<< "$w"
  eval "fl=($flags)" 2>/dev/null || fl=()
  cs="on off"
  [ "${COUNTS:-0}" = 1 ] && cs=on
  for c in $cs; do
    "$gpuc" compile --checks=$c "$src" "${fl[@]}" -o "checks-$name-$c.cu" 2> "checks-$name-$c.report" || { echo "bench-checks: gpuc compile $name --checks=$c failed"; cat "checks-$name-$c.report"; }
  done
done
if [ "${COUNTS:-0}" = 1 ]; then
  echo "| workload | checks in the program |"
  echo "|---|---|"
  for w in "${workloads[@]}"; do
    n=${w%%|*}
    [ -f "checks-$n-on.cu" ] && echo "| $n | $(counts "checks-$n-on.cu") |"
  done
  exit 0
fi
for w in "${workloads[@]}"; do
  n=${w%%|*}
  printf 'checks-%s-on\nchecks-%s-off\n' "$n" "$n"
done | xargs -P "$(nproc)" -I{} nvcc -O3 -arch="$arch" -o {} {}.cu

ms() { grep -o '[0-9.]* ms' "$1" | head -1 | cut -d' ' -f1; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "n/a" }'; }
table="| workload | checks on ms | --checks=off ms | cost | checks in the program (on) |"$'\n'"|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  IFS='|' read -r name _ _ args <<< "$w"
  [ -x "checks-$name-on" ] && [ -x "checks-$name-off" ] || { table+=$'\n'"| $name | build failed | | | |"; continue; }
  : > "checks-$name-on.ms"; : > "checks-$name-off.ms"
  same=yes
  for ((r = 0; r < reps; r++)); do
    for c in on off; do
      # shellcheck disable=SC2086
      timeout "${RUN_TIMEOUT:-120}" ./"checks-$name-$c" $args --time > "checks-$name-$c.out" 2> "checks-$name-$c.err" || echo "bench-checks: $name ($c) exited $?: $(head -2 "checks-$name-$c.err")"
      ms "checks-$name-$c.err" >> "checks-$name-$c.ms"
    done
    cmp -s "checks-$name-on.out" "checks-$name-off.out" || same=no
  done
  on=$(median < "checks-$name-on.ms") off=$(median < "checks-$name-off.ms")
  cost=$(awk -v a="$on" -v b="$off" 'BEGIN { if (b > 0) printf "%+.1f%%", 100 * (a - b) / b; else print "n/a" }')
  counts=$(counts "checks-$name-on.cu")
  [ "$same" = yes ] || cost="$cost (OUTPUTS DIFFER)"
  table+=$'\n'"| $name | $on | $off | $cost | $counts |"
  echo "$name: on $(tr '\n' ' ' < "checks-$name-on.ms")ms, off $(tr '\n' ' ' < "checks-$name-off.ms")ms"
done
echo
echo "$table"
