#!/usr/bin/env bash
# Second half of the GPU check (needs nvcc and a GPU, not Go): build every
# DIR/*.cu with nvcc, run it, and diff its output against DIR/*.expected,
# which `gpuc run` wrote. Warnings from nvcc count as failures.
#
#   scripts/gpu-check.sh DIR
#
# GPUC_SANITIZE=1 also runs each program under compute-sanitizer
# (memcheck and racecheck).
set -uo pipefail
dir=${1:?usage: gpu-check.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
command -v nvcc >/dev/null || { echo "gpu-check: nvcc not found" >&2; exit 1; }
echo "gpu-check: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nvcc --version | tail -1)"
pass=0 fail=0
for cu in *.cu; do
  name=${cu%.cu}
  args=()
  [ -f "$name.args" ] && read -r -a args < "$name.args"
  if ! nvcc -O3 -arch="$arch" -o "$name" "$cu" 2> "$name.nvcc"; then
    echo "FAIL $name: nvcc failed"; cat "$name.nvcc"; fail=$((fail + 1)); continue
  fi
  if [ -s "$name.nvcc" ]; then
    echo "FAIL $name: nvcc warnings"; cat "$name.nvcc"; fail=$((fail + 1)); continue
  fi
  if ! ./"$name" "${args[@]}" > "$name.out" 2> "$name.err"; then
    echo "FAIL $name: exit status $?"; cat "$name.err"; fail=$((fail + 1)); continue
  fi
  if ! diff -q "$name.expected" "$name.out" > /dev/null; then
    echo "FAIL $name: output differs from gpuc run"; diff "$name.expected" "$name.out" | head -20
    fail=$((fail + 1)); continue
  fi
  if [ "${GPUC_SANITIZE:-0}" = 1 ]; then
    for tool in memcheck racecheck; do
      if ! compute-sanitizer --tool "$tool" --error-exitcode 3 ./"$name" "${args[@]}" > "$name.$tool" 2>&1; then
        echo "FAIL $name: compute-sanitizer $tool"; tail -20 "$name.$tool"; fail=$((fail + 1)); continue 2
      fi
    done
  fi
  echo "ok   $name ($(wc -l < "$name.out") lines)"
  pass=$((pass + 1))
done
echo "gpu-check: $pass passed, $fail failed"
[ "$fail" = 0 ]
