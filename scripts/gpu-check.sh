#!/usr/bin/env bash
# Second half of the GPU check (needs nvcc and a GPU, not Go): build every
# program in DIR, run it, and diff its output and exit status against
# DIR/*.expected and DIR/*.status, which `gpuc run` wrote, and for error
# cases (DIR/*.stderr) its error too. Each program
# comes by two paths:
#   NAME.cu        the CUDA backend's program, built with nvcc; warnings
#                  from nvcc count as failures;
#   NAME.llvm.cpp  the LLVM backend's host program, which loads its PTX
#                  through the CUDA driver API, built with nvcc -lcuda
#                  (or g++ -lcuda where nvcc is missing); NAME.ptx, the
#                  same PTX, is first checked with ptxas where present;
#   NAME.hyb.cpp   for TRS programs, the hybrid program, linked with its
#                  CPU kernels NAME.hyb.o (built by gpu-artifacts.sh) and
#                  run by default, with HYBRID=0, HYBRID=cpu and
#                  HYBRID_MIGRATE=every (Note [Hybrid migration] in
#                  backends/cuda/hybrid.h).
#
#   scripts/gpu-check.sh DIR
#
# A world program (one that includes world.h: Note [World on NVSHMEM] in
# backends/cuda) is built whole against NVSHMEM, from
# $GPUC_NVSHMEM or the python3 wheel, with the flags that the program
# names (Note [A world built whole]), and runs on as many GPUs as its
# DEVICES says (2 for the TRS examples' NAME-world2 programs); where the
# machine has fewer GPUs, it is skipped with a note.
#
# GPUC_ONLY=GLOB checks only the programs whose names match (for example
# '*world*', the world programs on a machine with two GPUs).
# GPUC_SANITIZE=1 also runs each program under compute-sanitizer
# (memcheck and racecheck). GPUC_ARCH sets the GPU architecture (sm_90).
set -uo pipefail
dir=${1:?usage: gpu-check.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found" >&2; exit 1; }
echo "gpu-check: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nvcc --version | tail -1)"
pass=0 fail=0 skip=0
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
nvshmem=${GPUC_NVSHMEM:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)}
export nvshmem

# check NAME EXE PROGRAM: runs EXE with NAME's arguments and compares its
# output and exit status with the expected ones.
check() {
  local name=$1 exe=$2 prog=$3 args=() want=0 got=0
  [ -f "$name.args" ] && read -r -a args < "$name.args"
  [ -f "$name.status" ] && want=$(cat "$name.status")
  # shellcheck disable=SC2086
  timeout "${GPUC_TIMEOUT:-120}" env ${run_env:-} ./"$exe" "${args[@]}" ${run_args:-} > "$exe.out" 2> "$exe.err" || got=$?
  if [ "$got" != "$want" ]; then
    echo "FAIL $prog: exit status $got, want $want"; cat "$exe.err"; fail=$((fail + 1)); return
  fi
  if ! diff -q "$name.expected" "$exe.out" > /dev/null; then
    echo "FAIL $prog: output differs from gpuc run"; diff "$name.expected" "$exe.out" | head -20
    fail=$((fail + 1)); return
  fi
  # Error cases: the error reads as gpuc run's (Note [Checks] in backends/abi).
  if [ -f "$name.stderr" ] && ! diff -q "$name.stderr" "$exe.err" > /dev/null; then
    echo "FAIL $prog: error differs from gpuc run"; diff "$name.stderr" "$exe.err" | head -20
    fail=$((fail + 1)); return
  fi
  if [ "${GPUC_SANITIZE:-0}" = 1 ]; then
    for tool in memcheck racecheck; do
      # shellcheck disable=SC2086
      # GPUC_DETACH=0: the sanitizer follows the program's own process
      # (Note [Detached exit] in backends/cuda/detach.h).
      if ! env ${run_env:-} GPUC_DETACH=0 compute-sanitizer --tool "$tool" --error-exitcode 3 ./"$exe" "${args[@]}" ${run_args:-} > "$exe.$tool" 2>&1; then
        if [ "$want" = 0 ] || grep -q "ERROR SUMMARY: [1-9]" "$exe.$tool"; then
          echo "FAIL $prog: compute-sanitizer $tool"; tail -20 "$exe.$tool"; fail=$((fail + 1)); return
        fi
      fi
    done
  fi
  echo "ok   $prog ($(wc -l < "$exe.out") lines, exit $got)"
  pass=$((pass + 1))
}

# Build everything first, in parallel: nvcc takes seconds a program.
build() {
  local src=$1
  case "$src" in
  *.llvm.cpp)
    local name=${src%.llvm.cpp}
    if [ -f "$name.ptx" ] && command -v ptxas >/dev/null && ! ptxas -arch="$arch" -o /dev/null "$name.ptx" 2> "$name.llvm.ptxas"; then
      echo "ptxas rejects $name.ptx" > "$name.llvm.failed"; return
    fi
    if command -v nvcc >/dev/null; then
      nvcc -O3 -o "$name.llvm" "$src" -lcuda 2> "$name.llvm.build" || echo "nvcc failed" > "$name.llvm.failed"
    else
      g++ -O2 -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$name.llvm" "$src" -lcuda 2> "$name.llvm.build" || echo "g++ failed" > "$name.llvm.failed"
    fi
    ;;
  *.hyb.cpp)
    local name=${src%.hyb.cpp}
    nvcc -O3 -o "$name.hyb" "$src" "$name.hyb.o" -lpthread -ldl 2> "$name.hyb.build" || echo "nvcc failed" > "$name.hyb.failed"
    ;;
  *.cu)
    local name=${src%.cu}
    if grep -q '^#define GPUC_WORLD_H' "$src"; then
      if [ -z "$nvshmem" ]; then
        echo "NVSHMEM not found (set GPUC_NVSHMEM)" > "$name.failed"
      # shellcheck disable=SC2046 # the flags that the program names, $NV its NVSHMEM (WorldFlags in backends/cuda)
      elif ! nvcc -O3 -arch="$arch" -o "$name" "$src" $(sed -n 's|^// nvcc world flags: ||p' "$src" | sed "s|[$]NV|$nvshmem|g") 2> "$name.nvcc"; then
        echo "nvcc failed" > "$name.failed"
      elif [ -s "$name.nvcc" ]; then
        echo "nvcc warnings" > "$name.failed"
      fi
      return
    fi
    if ! nvcc -O3 -arch="$arch" -o "$name" "$src" 2> "$name.nvcc"; then
      echo "nvcc failed" > "$name.failed"
    elif [ -s "$name.nvcc" ]; then
      echo "nvcc warnings" > "$name.failed"
    fi
    ;;
  esac
}
export -f build
export arch
rm -f ./*.failed
only=${GPUC_ONLY:-*}
# shellcheck disable=SC2254
ls ./*.cu ./*.llvm.cpp ./*.hyb.cpp 2>/dev/null | while read -r f; do case "${f#./}" in $only) echo "$f" ;; esac; done |
  xargs -P "$(nproc)" -I{} bash -c 'build "$1"' _ {}

for cu in *.cu; do
  [ -e "$cu" ] || continue
  # shellcheck disable=SC2254
  case "$cu" in $only) ;; *) continue ;; esac
  name=${cu%.cu}
  if [ -f "$name.failed" ]; then
    echo "FAIL $name: $(cat "$name.failed")"; cat "$name.nvcc"; fail=$((fail + 1)); continue
  fi
  # A world program needs the GPUs that its DEVICES says.
  devices=$(sed -n 's/^static [a-z ]* DEVICES = \([0-9]*\).*/\1/p' "$cu")
  if [ -n "$devices" ] && [ "$devices" -gt "$gpus" ]; then
    echo "skip $name: a world program of $devices GPUs, and this machine has $gpus"; skip=$((skip + 1)); continue
  fi
  check "$name" "$name" "$name"
done

for cpp in *.llvm.cpp; do
  [ -e "$cpp" ] || continue
  # shellcheck disable=SC2254
  case "$cpp" in $only) ;; *) continue ;; esac
  name=${cpp%.llvm.cpp}
  exe=$name.llvm
  if [ -f "$exe.failed" ]; then
    echo "FAIL $exe: $(cat "$exe.failed")"; cat "$exe.ptxas" "$exe.build" 2>/dev/null; fail=$((fail + 1)); continue
  fi
  [ -s "$exe.build" ] && { echo "note $exe: the host compiler said:"; cat "$exe.build"; }
  check "$name" "$exe" "$exe"
done

# The hybrid programs, four ways: by default, GPU only, CPU only, and
# moving at every iteration (HYBRIDITER=1, a hybrid point at each; SMALL=2
# runs both of TRS's loops).
for cpp in *.hyb.cpp; do
  [ -e "$cpp" ] || continue
  # shellcheck disable=SC2254
  case "$cpp" in $only) ;; *) continue ;; esac
  name=${cpp%.hyb.cpp}
  exe=$name.hyb
  if [ -f "$exe.failed" ]; then
    echo "FAIL $exe: $(cat "$exe.failed")"; cat "$exe.build" 2>/dev/null; fail=$((fail + 1)); continue
  fi
  for run_env in "HYBRID=1" "HYBRID=0" "HYBRID=cpu" "HYBRID_MIGRATE=every"; do
    run_args=
    [ "$run_env" = HYBRID_MIGRATE=every ] && run_args="SMALL=2 HYBRIDITER=1"
    check "$name" "$exe" "$exe $run_env $run_args"
  done
  run_env= run_args=
done

echo "gpu-check: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
