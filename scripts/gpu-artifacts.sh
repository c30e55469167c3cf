#!/usr/bin/env bash
# First half of the GPU check (needs Go, not a GPU): compile every example
# to CUDA C and, through the LLVM backend, to PTX with a driver-API host
# program, and record the interpreter's output as the expected output.
#
#   scripts/gpu-artifacts.sh DIR [EXTRA.kir ...]
#
# For examples/<family>/<name>.<ext> it writes into DIR:
#   <family>-<name>.cu        the CUDA backend's program
#   <family>-<name>.ptx       the LLVM backend's kernels, compiled by llc
#   <family>-<name>.llvm.cpp  the host program that runs that PTX
#   <family>-<name>.expected  what `gpuc run` prints
#   <family>-<name>.status    gpuc run's exit status, where it is not 0
#   <family>-<name>.args      the program's arguments, from
#                             examples/<family>/<name>.args if it exists
#   <family>-<name>-relaunch.*  for SPMD programs (.fork, .chr): the CUDA program
#                             lowered with --grid-sync=never, so that both
#                             ways of running grid barriers are checked
#   <family>-<name>-grid.*    for TRS programs: the program run with SMALL=0,
#                             through its grid-wide loop (and -relaunch.*
#                             too, as relaunches)
#   <family>-<name>.hyb.cpp, .hyb.o  for TRS programs, where clang-16 is
#                             present: the hybrid program and its CPU
#                             kernels (gpu-check.sh runs it four ways)
#   <family>-<name>-world2.*  for TRS programs and .kir programs with the
#                             parameter DEVICES: the program compiled with
#                             DEVICES=2, a world program (Note [World on
#                             NVSHMEM] in backends/cuda) that runs on two
#                             GPUs; it prints what `gpuc run --devices 2`
#                             does. A TRS program is the lowering's own
#                             world program, placed by owner (--world,
#                             Note [TRS on several devices]), and must
#                             print the same bytes as on one device;
#                             -world2-grid runs the benchmarks' systems
#                             spread by the distribute-world pass instead
#                             (its store distributed by index, its regions
#                             world) with SMALL=0, through cooperative
#                             world launches
# Further .kir files named on the command line (test programs without
# input files) are added as <dir>-<dir>-<name>. One with a <name>.cases
# file beside it, a line of arguments per error case, also gets
# <...>-<name>-caseK.* for its Kth line, with <...>.stderr, what `gpuc run`
# prints on stderr, which gpu-check.sh compares too. A <name>.in file beside
# a program (an input file that its .args name) is copied into DIR. A
# .kir program with the parameter DEVICES is a world program, with no
# LLVM path. The PTX needs llc-16 or
# llc; without it the LLVM path is left out, with a warning.
# scripts/gpu-check.sh DIR then needs only nvcc and a GPU.
set -euo pipefail
dir=${1:?usage: gpu-artifacts.sh DIR [EXTRA.kir ...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
gpuc=$root/bin/gpuc
[ -x "$gpuc" ] || { echo "gpu-artifacts: $gpuc missing; run make first" >&2; exit 1; }
llvm=yes
if ! command -v llc-16 >/dev/null && ! command -v llc >/dev/null; then
  echo "gpu-artifacts: warning: no llc-16 or llc on PATH; writing the CUDA path only" >&2
  llvm=no
fi
extras=()
for src in "$@"; do extras+=("$(cd "$(dirname "$src")" && pwd)/$(basename "$src")"); done
rm -rf "$dir" && mkdir -p "$dir"
n=0
for src in "$root"/examples/*/*.kir "$root"/examples/*/*.fork "$root"/examples/*/*.trs "$root"/examples/*/*.rec "$root"/examples/*/*.chr "${extras[@]}"; do
  [ -e "$src" ] || continue
  base=$(basename "${src%.*}")
  parent=$(dirname "$src")
  name=$(basename "$parent")-$base
  case "$src" in "$root"/examples/*) ;; *) name=$(basename "$(dirname "$parent")")-$name ;; esac
  args=()
  if [ -f "${src%.*}.args" ]; then
    read -r -a args < "${src%.*}.args"
    cp "${src%.*}.args" "$dir/$name.args"
  fi
  "$gpuc" compile "$src" -o "$dir/$name.cu"
  # A .kir program with cooperative launches (grid barriers) has no LLVM
  # path: that backend runs grid barriers as relaunches, which .kir
  # programs do not get.
  [ -f "${src%.*}.in" ] && cp "${src%.*}.in" "$dir/"
  if [ "$llvm" = yes ] && ! { [ "${src##*.}" = kir ] && grep -q 'coop;\|barrier grid;\|^param DEVICES' "$src"; }; then
    "$gpuc" compile "$src" --emit=ptx -o "$dir/$name.ptx"
    "$gpuc" compile "$src" --emit=llvm-host -o "$dir/$name.llvm.cpp"
  fi
  status=0
  (cd "$parent" && "$gpuc" run "$src" "${args[@]}") > "$dir/$name.expected" || status=$?
  [ "$status" = 0 ] || echo "$status" > "$dir/$name.status"
  n=$((n + 1))
  if [ -f "${src%.*}.cases" ]; then
    k=0
    while read -r line; do
      k=$((k + 1))
      c=$name-case$k
      for ext in cu ptx llvm.cpp; do
        if [ -f "$dir/$name.$ext" ]; then cp "$dir/$name.$ext" "$dir/$c.$ext"; fi
      done
      echo "$line" > "$dir/$c.args"
      status=0
      # shellcheck disable=SC2086
      (cd "$parent" && "$gpuc" run "$src" $line) > "$dir/$c.expected" 2> "$dir/$c.stderr" || status=$?
      [ "$status" = 0 ] || echo "$status" > "$dir/$c.status"
      n=$((n + 1))
    done < "${src%.*}.cases"
  fi
  if [ "${src##*.}" = kir ] && grep -q '^param DEVICES' "$src"; then
    "$gpuc" compile "$src" DEVICES=2 -o "$dir/$name-world2.cu"
    status=0
    (cd "$parent" && "$gpuc" run --devices 2 "$src" "${args[@]}") > "$dir/$name-world2.expected" || status=$?
    [ "$status" = 0 ] || echo "$status" > "$dir/$name-world2.status"
    [ -f "$dir/$name.args" ] && cp "$dir/$name.args" "$dir/$name-world2.args"
    n=$((n + 1))
  fi
  case "$src" in
  *.fork | *.chr)
    "$gpuc" compile "$src" --grid-sync=never -o "$dir/$name-relaunch.cu"
    for ext in expected args status; do
      [ -f "$dir/$name.$ext" ] && cp "$dir/$name.$ext" "$dir/$name-relaunch.$ext"
    done
    n=$((n + 1))
    ;;
  esac
  case "$src" in
  *.trs | *.rec)
    # Small examples run in the one-block loop; SMALL=0 sends them
    # through the grid-wide loop, as one cooperative kernel and as
    # relaunches.
    cp "$dir/$name.cu" "$dir/$name-grid.cu"
    "$gpuc" compile "$src" --grid-sync=never -o "$dir/$name-relaunch.cu"
    for v in grid relaunch; do
      echo "${args[*]} SMALL=0 PROCS=1000" > "$dir/$name-$v.args"
      for ext in expected status; do
        [ -f "$dir/$name.$ext" ] && cp "$dir/$name.$ext" "$dir/$name-$v.$ext"
      done
      n=$((n + 1))
    done
    # The hybrid program (Note [Hybrid migration] in
    # backends/cuda/hybrid.h): its PTX embedded, its CPU kernels an object
    # built here, as the GPU machine may have no clang.
    if [ "$llvm" = yes ] && command -v clang-16 >/dev/null; then
      "$gpuc" compile "$src" --emit=llvm-hybrid -o "$dir/$name.hyb.cpp" HYBRIDITER=16
      "$gpuc" compile "$src" --emit=llvm --target=host -o "$dir/$name.hyb.ll" HYBRIDITER=16
      clang-16 -O2 -Wno-override-module -c "$dir/$name.hyb.ll" -o "$dir/$name.hyb.o"
      rm -f "$dir/$name.hyb.ll"
      n=$((n + 1))
    fi
    # The system on two GPUs, placed by owner, prints the same bytes
    # (issue 19); the interpreter's run on two simulated devices must
    # agree first.
    world2() { # SUFFIX FLAGS...: compile and expect with FLAGS
      local v=$1
      shift
      "$gpuc" compile "$src" "$@" DEVICES=2 -o "$dir/$name-$v.cu"
      status=0
      (cd "$parent" && "$gpuc" run "$@" --devices 2 "$src" "${args[@]}") > "$dir/$name-$v.expected" || status=$?
      [ "$status" = 0 ] || echo "$status" > "$dir/$name-$v.status"
      if ! cmp -s "$dir/$name.expected" "$dir/$name-$v.expected"; then
        echo "gpu-artifacts: $src prints other bytes on two simulated devices ($*)" >&2
        exit 1
      fi
      n=$((n + 1))
    }
    world2 world2 --world
    [ -f "$dir/$name.args" ] && cp "$dir/$name.args" "$dir/$name-world2.args"
    # The benchmarks' systems also spread by index through the grid-wide
    # loop, whose cooperative world launches hold world barriers (and
    # idle blocks on a device whose share of a small grid is empty).
    case "$base" in mergesort | treemergesort | transtree)
      world2 world2-grid --passes=distribute-world,default
      echo "${args[*]} SMALL=0 PROCS=1000" > "$dir/$name-world2-grid.args"
      ;;
    esac
    ;;
  esac
done
cp "$root/scripts/gpu-check.sh" "$dir/"
echo "gpu-artifacts: $n programs in $dir (LLVM path: $llvm)"
