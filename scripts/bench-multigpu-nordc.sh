#!/usr/bin/env bash
# Branch nordc13's turn (issue 19: world programs built whole, Note [A
# world built whole] in backends/cuda/world.go): ONE call of at most 8
# minutes on nvidia-h100-x4 (H100 or H200), in a folder that
# `make multigpu-artifacts BENCH_DIR=...` wrote, with
# nordc-old/world_barrier.cu beside the script: world_barrier.kir
# compiled by main's gpuc before the branch (3e9ab3e: the world barrier
# nvshmem_barrier_all, built -rdc):
#
#   ./bench-multigpu-nordc.sh 2>&1 | tee $OUT/nordc.txt
#
# It was run (07:03, docs/BENCHMARKS.md, branch nordc13) on world.h as
# of 47fd546, which included NVSHMEM's headers with NVSHMEM_HOSTLIB_ONLY
# and started NVSHMEM with nvshmemx_hostlib_init_attr: L0 below. Since
# then world programs are built as L3 (Note [A world built whole] in
# backends/cuda/world.go), and L0 is the same source linked against the
# host library alone; bench-multigpu-nordc2.sh checked L3 on TRS.
#
#   1. the link question, on world_barrier.kir and world_fence.kir built
#      four ways: L0 the default (whole, NVSHMEM's host library alone);
#      L1 the same with -lnvshmem_device; L2 the source with NVSHMEM's
#      inline init (nvshmemx_init_attr, every header), built whole
#      (`nvcc -c`) and linked -rdc=true with the device library; L3 that
#      source in one whole build with both libraries. Each runs on 2 and
#      4 GPUs and says PASS or FAIL against the interpreter's output;
#   2. the world barrier inside a cooperative kernel on 2 and 4 GPUs:
#      main's (nvshmem_barrier_all, -rdc) against the new one, and the
#      world fence probe (every device's writes seen after each world
#      barrier) at R=2000;
#   3. bench-multigpu.sh's sections 1, 2 and 4 (MULTIGPU_ONLY=124): the
#      host iteration, today's tree merge sort at depth 23, the world
#      program at 23 on 1 (its one-device program and the world's own
#      kernels), 2 and 4 (strong), 24 on 2 and 25 on 4 (weak, PASS
#      against the fitted normal form), the world with every device
#      function inline (tms23-w-inl) on 1, 2 and 4; every row with its
#      whole run's wall clock. If L0 failed and L2 passed, the TRS world
#      programs are patched and built as L2.
here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 1
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
arch=${GPUC_ARCH:-sm_90}
nv=${GPUC_NVSHMEM:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)}
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
echo "nordc: $(date -u +%H:%M:%S) on ${gpus}x $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1), NVSHMEM $nv"
[ -n "$nv" ] || { echo "nordc: NVSHMEM not found"; exit 1; }
ks=(2)
[ "$gpus" -ge 4 ] && ks=(2 4)
libs="-L$nv/lib -l:libnvshmem_host.so.3"
rpath="-Xlinker -rpath,$nv/lib"

# devlib FILE: FILE's source as before the branch started NVSHMEM: every
# header, the device library's inline init.
devlib() {
  sed -e '/^#define NVSHMEM_HOSTLIB_ONLY$/d' -e 's/nvshmemx_hostlib_init_attr(/nvshmemx_init_attr(/' \
    -e 's/nvshmemx_hostlib_finalize()/nvshmem_finalize()/' "$1"
}
# lbuild L NAME SRC: builds SRC as recipe L into NAME.
lbuild() {
  local l=$1 name=$2 src=$3
  case $l in
  L0) nvcc -O3 -arch="$arch" -o "$name" "$src" -I"$nv/include" $libs $rpath ;;
  L1) nvcc -O3 -arch="$arch" -o "$name" "$src" -I"$nv/include" $libs -lnvshmem_device $rpath ;;
  L2) devlib "$src" > "$name.cu" && nvcc -O3 -arch="$arch" -I"$nv/include" -c -o "$name.o" "$name.cu" &&
    nvcc -arch="$arch" -rdc=true -o "$name" "$name.o" $libs -lnvshmem_device $rpath ;;
  L3) devlib "$src" > "$name.cu" && nvcc -O3 -arch="$arch" -o "$name" "$name.cu" -I"$nv/include" $libs -lnvshmem_device $rpath ;;
  esac
}
# run NAME WANT ARGS...: runs NAME, PASS if it exits 0 and prints WANT.
run() {
  local name=$1 want=$2 got rc=0 t0 t1
  shift 2
  t0=$(date +%s%N)
  got=$(timeout 60 ./"$name" "$@" --time 2> "$name.err") || rc=$?
  t1=$(date +%s%N)
  local dev
  dev=$(grep -o 'device time [0-9.]* ms' "$name.err" | awk '{ print $3 }')
  if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
    echo "PASS $name $* (device ${dev:-n/a} ms, whole run $(( (t1 - t0) / 1000000 )) ms)"
  else
    echo "FAIL $name $*: exit $rc, printed \"$got\", want \"$want\""
    tail -5 "$name.err"
  fi
  echo "$dev" > "$name.dev"
}
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (a != "" && b != "" && n > 0) printf "%.2f", (a - b) * 1000 / n; else print "n/a" }'; }

echo "== 1. the link question ($(date -u +%H:%M:%S))"
t0=$SECONDS
./gpuc compile world_barrier.kir -o nb.cu || exit 1
./gpuc compile world_fence.kir -o nf.cu || exit 1
for l in L0 L1 L2 L3; do
  (lbuild "$l" "nb-$l" nb.cu > "nb-$l.build" 2>&1 || echo "build failed" > "nb-$l.failed") &
  (lbuild "$l" "nf-$l" nf.cu > "nf-$l.build" 2>&1 || echo "build failed" > "nf-$l.failed") &
done
# main's world_barrier, built as main builds it (its flags line, -rdc).
oflags=$(sed -n 's|^// nvcc world flags: ||p' nordc-old/world_barrier.cu)
# shellcheck disable=SC2086
(nvcc -O3 -arch="$arch" $oflags -I"$nv/include" -o ob nordc-old/world_barrier.cu $libs -lnvshmem_device $rpath > ob.build 2>&1 || echo "build failed" > ob.failed) &
wait
echo "built the probes in $((SECONDS - t0)) s"
ok=()
for l in L0 L1 L2 L3; do
  good=1
  for p in nb nf; do
    if [ -f "$p-$l.failed" ]; then
      echo "FAIL $p-$l: does not build:"; grep -v '^$' "$p-$l.build" | tail -6; good=0; continue
    fi
    [ -s "$p-$l.build" ] && { echo "note $p-$l: nvcc said:"; tail -4 "$p-$l.build"; }
    for k in "${ks[@]}"; do
      if [ "$p" = nb ]; then want=100; args=(R=100 G=$((132 * k))); else want=0; args=(R=100 G=$((132 * k))); fi
      out=$(run "$p-$l" "$want" DEVICES="$k" "${args[@]}")
      echo "$out"
      case "$out" in PASS*) ;; *) good=0 ;; esac
    done
  done
  [ "$good" = 1 ] && ok+=("$l")
done
echo "link recipes that build and run: ${ok[*]:-none}"

echo "== 2. the world barrier in a cooperative kernel, G=132 blocks of 256 a device, R=2000 ($(date -u +%H:%M:%S))"
R=2000
for k in "${ks[@]}"; do
  for p in ob nb-L0 nb-L2; do
    [ -x "$p" ] || { echo "$p: not built"; continue; }
    run "$p" 0 DEVICES="$k" R=0 G=$((132 * k)) > /dev/null; a=$(cat "$p.dev")
    o1=$(run "$p" "$R" DEVICES="$k" R="$R" G=$((132 * k))); b=$(cat "$p.dev")
    what="new (gpuc's barrier, whole)"
    [ "$p" = ob ] && what="main's (nvshmem_barrier_all, -rdc)"
    [ "$p" = nb-L2 ] && what="new barrier, built as L2"
    echo "world of $k, $what: $(per "$b" "$a" "$R") us a world barrier ($b ms with, $a without); $o1"
  done
  for p in nf-L0 nf-L2; do
    [ -x "$p" ] && run "$p" 0 DEVICES="$k" R="$R" G=$((132 * k))
  done
done

echo "== 3. bench-multigpu.sh, sections 1, 2 and 4 ($(date -u +%H:%M:%S))"
bench=bench-multigpu.sh
case " ${ok[*]} " in
*" L0 "*) ;;
*" L2 "*)
  echo "nordc: L0 failed and L2 passed: the TRS world programs are built as L2"
  declare -f devlib > l2build.sh
  cat >> l2build.sh <<'EOS'
# l2build.sh EXTRA... -o NAME NAME.cu FLAGS...: L2 (see bench-multigpu-nordc.sh)
args=("$@"); out=; src=; extra=()
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in -o) out=${args[i + 1]}; i=$((i + 1)) ;; *.cu) src=${args[i]} ;; -D*) extra+=("${args[i]}") ;; esac
done
devlib "$src" > "$out.l2.cu" && nvcc -O3 -arch="${GPUC_ARCH:-sm_90}" "${extra[@]}" -I"$NV/include" -c -o "$out.o" "$out.l2.cu" &&
  nvcc -arch="${GPUC_ARCH:-sm_90}" -rdc=true -o "$out" "$out.o" -L"$NV/lib" -l:libnvshmem_host.so.3 -lnvshmem_device -Xlinker -rpath,"$NV/lib"
EOS
  sed 's|^    timeout "\${MULTIGPU_BUILD_TIMEOUT:-1800}" nvcc -O3 -arch="\$arch" \$extra -o "\$1" "\$1.cu" \$flags$|    NV=$nv timeout "${MULTIGPU_BUILD_TIMEOUT:-1800}" bash ./l2build.sh $extra -o "$1" "$1.cu"|' bench-multigpu.sh > bench-l2.sh
  chmod +x bench-l2.sh
  grep -q l2build bench-l2.sh || echo "nordc: could not patch the build"
  bench=bench-l2.sh
  ;;
*) echo "nordc: no recipe ran the world; section 3 as the branch builds it anyway" ;;
esac
# nvcc of the TRS programs in parallel; tms23-w-inl, the slowest, is
# given up after MULTIGPU_BUILD_TIMEOUT.
MULTIGPU_ONLY=124 MULTIGPU_R=2000 MULTIGPU_G=132 MULTIGPU_AB=1 MULTIGPU_SHARE=0 MULTIGPU_TT=0 \
  MULTIGPU_STEPS=2 MULTIGPU_TIMEOUT=60 MULTIGPU_BUILD_TIMEOUT=${MULTIGPU_BUILD_TIMEOUT:-240} "./$bench" .
echo "nordc: done $(date -u +%H:%M:%S)"
