#!/usr/bin/env bash
# Branch nordc13's second turn: the recipe that the branch chose (one
# whole nvcc run with NVSHMEM's host and device libraries, the flags each
# world program names: Note [A world built whole] in
# backends/cuda/world.go), on TRS, which the first turn ran built in two
# parts (L2). At most 4 minutes on nvidia-h100-x4, in a folder with a
# static gpuc, treemergesort.trs and scripts/bench's world_barrier.kir,
# world_fence.kir and world_step.kir:
#
#   ./bench-multigpu-nordc2.sh 2>&1 | tee $OUT/nordc2.txt
#
# Builds in parallel today's tree merge sort at depth 23 and its world
# program alone (--world DEVICES=2: no one-device program inside, half
# the nvcc time), and the three probes; runs the world barrier, the
# fence probe and a host iteration on 2 and 4, and depth 23 on 1
# (today's), 2 and 4 (strong), each row with device time and the whole
# run's wall clock; prints a world run's whole standard error.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
arch=${GPUC_ARCH:-sm_90}
nv=${GPUC_NVSHMEM:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)}
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
echo "nordc2: $(date -u +%H:%M:%S) on ${gpus}x $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1)"
ks=(2)
[ "$gpus" -ge 4 ] && ks=(2 4)
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
tms="Gen($(nest 23 'Zero()' S), $list5)"
./gpuc compile treemergesort.trs --input "$tms" --print=summary --stats -o n2-tms23.cu || exit 1
./gpuc compile treemergesort.trs --input "$tms" --print=summary --stats --world DEVICES=2 -o n2-tms23-w2.cu || exit 1
for p in world_barrier world_fence world_step; do ./gpuc compile "$p.kir" -o "n2-$p.cu" || exit 1; done
t0=$SECONDS
for f in n2-*.cu; do
  (
    n=${f%.cu}
    flags=$(sed -n 's|^// nvcc world flags: ||p' "$f" | sed "s|[$]NV|$nv|g")
    echo "$n: nvcc -O3 -arch=$arch -o $n $f $flags" > "$n.build"
    # shellcheck disable=SC2086
    timeout 200 nvcc -O3 -arch="$arch" -o "$n" "$f" $flags >> "$n.build" 2>&1 || echo "$n: nvcc failed" >> "$n.build"
  ) &
done
wait
echo "built in $((SECONDS - t0)) s"
for f in n2-*.build; do
  [ "$(wc -l < "$f")" -gt 1 ] && { echo "nvcc said:"; cat "$f"; } || head -1 "$f"
done
# run NAME ARGS...: prints device time, whole run and the first line.
run() {
  local name=$1 rc=0 t0 t1
  shift
  t0=$(date +%s%N)
  timeout 60 ./"$name" "$@" --time > "$name.out" 2> "$name.err" || rc=$?
  t1=$(date +%s%N)
  dev=$(grep -o 'device time [0-9.]* ms' "$name.err" | awk '{ print $3 }')
  echo "$name $*: exit $rc, device ${dev:-n/a} ms, whole run $(( (t1 - t0) / 1000000 )) ms, prints: $(head -1 "$name.out" | cut -c1-80)"
  [ "$rc" = 0 ] || tail -4 "$name.err"
}
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (a != "" && b != "" && n > 0) printf "%.2f", (a - b) * 1000 / n; else print "n/a" }'; }
R=2000
for k in "${ks[@]}"; do
  run n2-world_barrier DEVICES="$k" R=0 G=$((132 * k)); a=$dev
  run n2-world_barrier DEVICES="$k" R=$R G=$((132 * k)); b=$dev
  echo "== world of $k: $(per "$b" "$a" "$R") us a world barrier"
  [ "$k" = 2 ] && { echo "-- its whole standard error:"; cat n2-world_barrier.err; echo "--"; }
  run n2-world_fence DEVICES="$k" R=$R G=$((132 * k))
  run n2-world_step DEVICES="$k" R=0; a=$dev
  run n2-world_step DEVICES="$k" R=$R; b=$dev
  echo "== world of $k: $(per "$b" "$a" "$R") us a host iteration"
done
cap=800000000
run n2-tms23 CAPACITY=$cap
base=$dev
grep -E '^gpuc: [0-9]+ launches' n2-tms23.err
for k in "${ks[@]}"; do
  run n2-tms23-w2 DEVICES="$k" CAPACITY=$((cap / k)) WORLDSTEPS=2
  same=DIFFERENT
  [ "$(head -1 n2-tms23-w2.out)" = "$(head -1 n2-tms23.out)" ] && same="the same normal form as today's"
  echo "== strong on $k: $(awk -v a="$base" -v b="$dev" 'BEGIN { if (a > 0 && b > 0) printf "%.3g", a / b; else print "n/a" }')x; $same"
  grep -E '^gpuc: ([0-9]+ launches|world:)' n2-tms23-w2.err
done
echo "nordc2: done $(date -u +%H:%M:%S)"
