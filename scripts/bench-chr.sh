#!/usr/bin/env bash
# CHR benchmarks on the GPU machine (needs nvcc, gcc and a GPU, not Go or
# SWI-Prolog):
#
#   make bench-artifacts           # here: programs and sources into bench-artifacts/
#   scripts/bench-chr.sh DIR       # there
#
# Workloads (issue 7): Floyd-Warshall on complete random graphs of 256,
# 1024 and 2048 nodes, primes to 10^6, min over 10^8 numbers, gcd over
# 10^6 numbers. The GPU programs are gpuc's compilations of
# examples/chr/{fw,min,gcd,primes}.chr; fw, min and gcd read their
# initial stores from files that chr_gen writes (--input, Note [Output]
# in docs/CHR.md), primes starts from the query range(2, N, N). Each GPU
# program runs at two region sizes: PROCS=65536, which the device holds
# as one cooperative kernel, and a larger one (relaunched kernels). They
# are compared with sequential C versions (gcc -O2) in the same run and,
# for Floyd-Warshall, with a hand-written CUDA kernel; every program must
# print the same store. SWI-Prolog's times come from the development
# machine (docs/BENCHMARKS.md), since this machine has no SWI-Prolog.
set -uo pipefail
dir=${1:?usage: bench-chr.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
echo "bench-chr: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), CPU $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
for p in fw min gcd primes; do nvcc -O3 -arch="$arch" -o "chr-$p" "chr-$p.cu" & done
nvcc -O3 -arch="$arch" -o chr_fw_cuda chr_fw.cu &
gcc -O2 -o chr_gen chr_gen.c &
gcc -O2 -o chr_fw_seq chr_fw.c &
gcc -O2 -o chr_reduce chr_reduce.c &
gcc -O2 -o chr_primes_seq chr_primes.c &
wait
mkdir -p data

# ms FILE: the first "X ms" figure in FILE.
ms() { grep -o '[0-9.]* ms' "$1" | head -1 | cut -d' ' -f1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "n/a" }'; }
same() { if cmp -s "$1" "$2"; then echo "same output"; else echo "OUTPUTS DIFFER"; diff "$1" "$2" | head -5; fi; }
# store BASE ARGS...: the NAME=@FILE arguments of a store read from data/.
store() {
  local b=$1 a
  shift
  echo -n "${b}_st=@data/${b}_st.bin ${b}_born=@data/${b}_born.bin ${b}_top=@data/${b}_top.bin"
  for a in "$@"; do echo -n " ${b}_a$a=@data/${b}_a$a.bin"; done
}
# gpu NAME ARGS...: runs a GPU program at both region sizes, output in
# gpu.out, and prints its times; the first time is left in $g, and the
# least kernel time and fixpoint time (the device time up to the end of the
# last kernel, without the copy-back, sorting and printing of the store)
# of the two in $gk and $gf.
gpu() {
  local name=$1 big
  shift
  g= gk= gf=
  for procs in 65536 "${BIG_PROCS:-1048576}"; do
    ./"chr-$name" "$@" PROCS="$procs" --time > gpu.out 2> gpu.err || { echo "chr-$name failed:"; cat gpu.err; }
    local t k after f
    t=$(ms gpu.err)
    k=$(grep -o 'kernels [0-9.]* ms' gpu.err | awk '{ print $2 }')
    after=$(grep -o '[0-9.-]* ms after the last' gpu.err | awk '{ print $1 }')
    f=$(awk -v t="$t" -v a="$after" 'BEGIN { printf "%.3f", t - a }')
    [ -n "$g" ] || g=$t
    gk=$(awk -v a="$gk" -v b="$k" 'BEGIN { print (a == "" || b < a) ? b : a }')
    gf=$(awk -v a="$gf" -v b="$f" 'BEGIN { print (a == "" || b < a) ? b : a }')
    echo "gpu (PROCS=$procs) $t ms, fixpoint $f ms; $(grep -h 'launches' gpu.err | head -1)"
    [ "$procs" = 65536 ] && cp gpu.out gpu-first.out
  done
  same gpu-first.out gpu.out > /dev/null || echo "the two region sizes print different stores"
}

for n in 256 1024 2048; do
  echo "== Floyd-Warshall, complete graph of $n nodes"
  m=$(./chr_gen fw "$n" data)
  gpu fw CAP_edge3="$m" $(store edge3 0 1 2)
  ./chr_fw_seq "$n" > seq.out 2> seq.err
  ./chr_fw_cuda "$n" > cuda.out 2> cuda.err
  s=$(ms seq.err) c=$(ms cuda.err)
  echo "sequential C -O2 $s ms: gpuc $(ratio "$s" "$g")x faster; $(same gpu.out seq.out)"
  echo "hand-written CUDA $c ms: gpuc takes $(ratio "$g" "$c")x its time; $(same gpu.out cuda.out)"
  echo "  against it, the best of the two region sizes: kernels $gk ms, $(ratio "$gk" "$c")x; fixpoint $gf ms, $(ratio "$gf" "$c")x"
done

echo "== primes to 10^6"
gpu primes CAP_range3=2097152 CAP_prime1=1048576 CAP_multiples3=8388608 CAP_composite1=8388608
./chr_primes_seq 1000000 > seq.out 2> seq.err
s=$(ms seq.err)
echo "sequential C -O2 (sieve) $s ms: gpuc $(ratio "$s" "$g")x faster; $(same gpu.out seq.out)"

for w in "min 100000000" "gcd 1000000"; do
  set -- $w
  echo "== $1 over $2 numbers"
  m=$(./chr_gen "$1" "$2" data)
  gpu "$1" CAP_${1}1="$m" $(store "${1}1" 0)
  ./chr_reduce "$1" "$2" > seq.out 2> seq.err
  s=$(ms seq.err)
  echo "sequential C -O2 $s ms: gpuc $(ratio "$s" "$g")x faster; $(same gpu.out seq.out)"
  echo "  the best of the two region sizes: kernels $gk ms, fixpoint $gf ms (the figures to set against SWI-Prolog's, which come from another machine)"
done

echo "== against the interpreter (static gpuc), small sizes"
m=$(./chr_gen fw 64 data)
t0=$(date +%s%N)
./gpuc run fw.chr --query none.pl --input edge3_st --input edge3_born --input edge3_top --input edge3_a0 --input edge3_a1 --input edge3_a2 \
  CAP_edge3="$m" PROCS=4096 $(store edge3 0 1 2) > interp.out
t1=$(date +%s%N)
./chr-fw CAP_edge3="$m" PROCS=4096 $(store edge3 0 1 2) --time > gpu.out 2> gpu.err
echo "fw 64 nodes: interpreter $(( (t1 - t0) / 1000000 )) ms, gpu $(ms gpu.err) ms; $(same gpu.out interp.out)"
rm -rf data
