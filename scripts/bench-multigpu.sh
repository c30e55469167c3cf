#!/usr/bin/env bash
# Several GPUs (issue 19) on a machine with two or more (needs nvcc, the
# NVSHMEM wheel and the GPUs, not Go):
#
#   make bench-artifacts             # here: a static gpuc, the sources, this script
#   scripts/bench-multigpu.sh DIR    # there, on nvidia-h100-x2 or -x4
#
# Every world program is built as Note [A world built whole] in
# backends/cuda says (whole, with the flags that the program names, NVSHMEM
# from $GPUC_NVSHMEM or the python3 wheel) and runs as ./prog DEVICES=k;
# one-GPU baselines run in the same call. Every run's row gives its device
# time (the program's clock, --time) and its whole run as the user feels
# it (the wall clock of ./prog from the process's start to its end). It
# measures:
#   1. the world barrier inside a cooperative kernel (world_barrier.kir:
#      R grid barriers in one world launch of G blocks a device), against
#      a plain grid barrier on one GPU; per barrier, (t(R) - t(0)) / R;
#   2. a host iteration of a world program (world_step.kir: a launch, a
#      world barrier, an allreduce of a value read back), against a launch
#      and a read-back on one GPU; per iteration;
#   3. nothing lost on one GPU: tree merge sort at depth 20 and the
#      transformation tree at depth 22 as today's programs, as world
#      programs on one GPU, and replicated on k (every device runs the
#      whole program: what DEVICES=k makes of a module whose launches are
#      not world), each printing the same normal form;
#   4. weak scaling (tree merge sort at depth 23 + log2 k on k GPUs against
#      depth 23 on one), strong scaling (depth 23 on 1, 2, 4) and the
#      capacity runs (tree merge sort at depth 24 on 2 GPUs and 25 on 4,
#      the transformation tree at depth 30 on 2), each checked against the
#      CPU rewriter's normal form fitted at that depth
#      (gpuc rewrite --extrapolate, Note [Fitted summaries] in
#      frontends/trs): PASS or FAIL. The world programs are the TRS
#      lowering's own (--world: Note [TRS on several devices]), placed by
#      owner; the remote share is the interpreter's count on them. Each
#      run also prints where its device time went (--time: kernels
#      against the rest, the world pool's allocation and zeroing, the
#      fitted CAPACITY). MULTIGPU_ONLY=4 runs section 4 alone (and builds
#      only its programs: nvcc builds in parallel of tms23, tms23-w,
#      tms24-w, tt30-w and, on four GPUs, tms25-w), for a short turn on
#      the GPUs. MULTIGPU_AB=0 leaves out tms23-w-inl (below).
#      A --world program carries today's program, which DEVICES=1 runs
#      (Note [A world of one runs the one-device program] in
#      backends/cuda); section 4 also runs the world's own kernels on one
#      device (GPUC_WORLD_OF_ONE=world) and prints the registers a thread
#      of each step kernel (cuobjdump -res-usage).
#      With MULTIGPU_AB (the default) it also builds the world program
#      with every device function inline (tms23-w-inl:
#      -DGPUC_OUT_OF_LINE=__forceinline__, Note [Large device functions
#      out of line]; the default keeps trs_step out of line, as today's
#      program does) and runs its world's kernels on 1, 2 and 4;
#      MULTIGPU_INL=1 builds tms23-w-inl alone, and MULTIGPU_25=0
#      leaves out tms25-w (weak and capacity on 4).
#      MULTIGPU_CAP sets the slots a device of the baselines and weak
#      runs (8e8). The transformation tree at depth 30 takes about 1.14e9
#      slots a device on 2 (50 bytes a slot, Note [Slot words]; the
#      interpreter's store at depth 12, scaled), under the fit's 1.34e9.
#      MULTIGPU_TT=0 leaves out the transformation tree (tt30-w), and
#      MULTIGPU_WIDE=1 adds tms23-w-wide, the world program built with
#      -DGPUC_DIST_WIDE: gpuc_dist's paths before issue 19's ninth wave
#      (a 64-bit local test and the index's check at every access, the
#      remote path inline; Note [A world's hot path in 32 bits] in
#      backends/cuda). MULTIGPU_STEPS lists the WORLDSTEPS values of the
#      world runs on 2 GPUs and more (default "1 2": iterations a host
#      decision, Note [A world's host decides once] in frontends/trs),
#      and MULTIGPU_SWAP=1 runs the strong run on 2 once more with the
#      GPUs swapped (CUDA_VISIBLE_DEVICES=1,0) and the world's kernels
#      on GPU 1 alone: whether the slower device of a world follows its
#      number or its GPU. Each world run prints each
#      device's kernel time and its host's stream barriers and read-backs,
#      and what a gap between kernels costs: the slowest device's kernels
#      less device 0's (device 0 waits for them at barriers), and the rest
#      a barrier or read-back (Note [Where a world's gaps go]). The short
#      turn of issue 19's ninth wave (4 programs, nvcc in parallel):
#        MULTIGPU_ONLY=4 MULTIGPU_AB=0 MULTIGPU_TT=0 MULTIGPU_WIDE=1 MULTIGPU_SWAP=1 MULTIGPU_TIMEOUT=60 ./bench-multigpu.sh .
#      MULTIGPU_WAITS=1 builds every world program with
#      -DGPUC_WORLD_WAITS: each world run also prints, by device, the time
#      its kernels waited in their world barriers for the other devices
#      (Note [Which device waits] in backends/cuda), two clock reads a
#      barrier on one thread a device.
# MULTIGPU_ONLY=124 runs sections 1, 2 and 4 (not 3).
# MULTIGPU_R sets R for the probes (10000), MULTIGPU_G lists section 1's
# blocks a device ("132 264"), MULTIGPU_TIMEOUT bounds each
# run (300 s) and MULTIGPU_BUILD_TIMEOUT each nvcc (1800 s),
# MULTIGPU_SCALING=0 leaves out section 4, MULTIGPU_TRS=0
# sections 3 and 4 (the probes alone build in seconds). GPUC_ARCH sets the
# GPU architecture (sm_90).
set -uo pipefail
dir=${1:?usage: bench-multigpu.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
gpuc=./gpuc
R=${MULTIGPU_R:-10000}
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
nv=${GPUC_NVSHMEM:-$(python3 -c "import nvidia.nvshmem as m; print(list(m.__path__)[0])" 2>/dev/null)}
echo "bench-multigpu: $(date -u +%Y-%m-%dT%H:%MZ) on ${gpus}x $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1), NVSHMEM ${nv:-missing}"
nvidia-smi topo -m 2>/dev/null | head -$((gpus + 1))
[ -n "$nv" ] || { echo "bench-multigpu: NVSHMEM not found (set GPUC_NVSHMEM)" >&2; exit 1; }
[ "$gpus" -ge 2 ] || { echo "bench-multigpu: needs two GPUs or more, this machine has $gpus" >&2; exit 1; }
ks=(1 2)
[ "$gpus" -ge 4 ] && ks=(1 2 4)

# build NAME: builds NAME.cu, a world program with NVSHMEM if it is one,
# with the flags that it names ($NV the wheel's directory: WorldFlags in
# backends/cuda).
build() {
  if grep -q '^#define GPUC_WORLD_H' "$1.cu"; then
    # NAME-inl: every device function inline; NAME-wide: gpuc_dist's
    # paths before the ninth wave.
    local extra=
    [ "${1%-inl}" != "$1" ] && extra=-DGPUC_OUT_OF_LINE=__forceinline__
    [ "${1%-wide}" != "$1" ] && extra=-DGPUC_DIST_WIDE
    [ "${MULTIGPU_WAITS:-0}" = 1 ] && extra="$extra -DGPUC_WORLD_WAITS"
    local flags
    flags=$(sed -n 's|^// nvcc world flags: ||p' "$1.cu" | sed "s|[$]NV|$nv|g")
    # shellcheck disable=SC2086 # extra and flags are lists
    timeout "${MULTIGPU_BUILD_TIMEOUT:-1800}" nvcc -O3 -arch="$arch" $extra -o "$1" "$1.cu" $flags
  else
    timeout "${MULTIGPU_BUILD_TIMEOUT:-1800}" nvcc -O3 -arch="$arch" -o "$1" "$1.cu"
  fi
}

# ms PROG ARGS...: runs PROG with --time and prints its device time in ms
# (device 0's clock), or fails with its error; PROG.wall keeps the whole
# run's wall clock in ms, from the process's start to its end, which
# wall PROG prints.
ms() {
  local prog=$1 t0 t1
  shift
  t0=$(date +%s%N)
  if ! timeout "${MULTIGPU_TIMEOUT:-300}" ./"$prog" "$@" --time > "$prog.out" 2> "$prog.err"; then
    echo "n/a" > "$prog.wall"
    echo "FAILED: $prog $*" >&2
    cat "$prog.err" >&2
    echo "n/a"
    return
  fi
  t1=$(date +%s%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", (b - a) / 1e6 }' > "$prog.wall"
  grep -o 'device time [0-9.]* ms' "$prog.err" | awk '{ print $3 }'
}
wall() { echo "whole run $(cat "$1.wall" 2>/dev/null || echo n/a) ms"; }
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (a != "n/a" && b != "n/a" && n > 0) printf "%.2f", (a - b) * 1000 / n; else print "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "n/a" && b != "n/a" && a > 0 && b > 0) printf "%.3g", a / b; else print "n/a" }'; }

# The probes: each as a world program and, without its DEVICES line, as
# today's program for the one-GPU baseline.
only4=${MULTIGPU_ONLY:-}
# MULTIGPU_ONLY=124 runs sections 1, 2 and 4: the probes (which build in
# seconds) and the scaling runs, without section 3's eight programs.
sec3=1
case "$only4" in 4 | 124) sec3=0 ;; esac
[ "$only4" = 4 ] && [ "${MULTIGPU_SCALING:-1}" = 0 ] && { echo "bench-multigpu: MULTIGPU_ONLY=4 with MULTIGPU_SCALING=0 runs nothing" >&2; exit 1; }
for p in world_barrier world_step; do
  [ "$only4" = 4 ] && break
  "$gpuc" compile "$p.kir" -o "mg-$p.cu" || exit 1
  grep -v '^param DEVICES' "$p.kir" > "mg-$p-base.kir"
  "$gpuc" compile "mg-$p-base.kir" -o "mg-$p-base.cu" || exit 1
done

# The TRS workloads of docs/BENCHMARKS.md: name, file, input term.
nest() {
  local t=$2 i
  for ((i = 0; i < $1; i++)); do t="$3($t)"; done
  printf '%s' "$t"
}
list5="Cons(S(S(S(Zero()))), Cons(S(Zero()), Cons(S(S(S(S(Zero())))), Cons(S(Zero()), Cons(S(S(S(S(S(Zero()))))), Nil())))))"
tms() { printf 'Gen(%s, %s)' "$(nest "$1" 'Zero()' S)" "$list5"; }
tt() { printf 'Expand(%s)' "$(nest "$1" 'Zero()' Suc)"; }
trs() { # NAME FILE INPUT [DEVICES=k]
  local name=$1 file=$2 input=$3
  shift 3
  "$gpuc" compile "$file" --input "$input" --print=summary --stats "$@" -o "mg-$name.cu" || exit 1
}
[ "${MULTIGPU_TRS:-1}" = 0 ] && MULTIGPU_SCALING=0
if [ "$sec3" = 1 ] && [ "${MULTIGPU_TRS:-1}" != 0 ]; then
  trs tms20 treemergesort.trs "$(tms 20)"
  trs tms20-w treemergesort.trs "$(tms 20)" DEVICES=1
  trs tt22 transtree.trs "$(tt 22)"
  trs tt22-w transtree.trs "$(tt 22)" DEVICES=1
fi
# Section 4's programs: the TRS lowering's world programs, placed by owner
# (--world), CAPACITY slots a device, fitted.
if [ "${MULTIGPU_SCALING:-1}" != 0 ]; then
  trs tms23 treemergesort.trs "$(tms 23)"
  for d in 23 24 25; do
    [ "$d" = 25 ] && { [ "$gpus" -lt 4 ] || [ "${MULTIGPU_25:-1}" = 0 ]; } && continue
    trs "tms$d-w" treemergesort.trs "$(tms "$d")" --world
  done
  { [ "${MULTIGPU_AB:-1}" != 0 ] || [ "${MULTIGPU_INL:-0}" = 1 ]; } && cp mg-tms23-w.cu mg-tms23-w-inl.cu
  [ "${MULTIGPU_WIDE:-0}" = 1 ] && cp mg-tms23-w.cu mg-tms23-w-wide.cu
  [ "${MULTIGPU_TT:-1}" = 0 ] || trs tt30-w transtree.trs "$(tt 30)" --world
fi

t0=$SECONDS
for f in mg-*.cu; do build "${f%.cu}" & done
wait
echo "bench-multigpu: built $(ls mg-*.cu | wc -l) programs in $((SECONDS - t0)) s (nvcc, in parallel)"

# trsrun PROG ARGS...: device time, rewrites and the normal form's line.
trsrun() {
  local t
  t=$(ms "$@")
  echo "$t ms ($(wall "$1")), $(awk '/^rewrites:/ { print $2 }' "$1.err") rewrites, $(head -1 "$1.out")"
}

if [ "$only4" != 4 ]; then
echo "== 1. world barrier inside a cooperative kernel (R=$R barriers, G blocks a device of 256 threads)"
read -r -a gs <<< "${MULTIGPU_G:-132 264}"
for G in "${gs[@]}"; do
  b0=$(ms mg-world_barrier-base R=0 G=$G)
  wb0=$(wall mg-world_barrier-base)
  b1=$(ms mg-world_barrier-base R="$R" G=$G)
  echo "one GPU, plain grid barrier, G=$G: $(per "$b1" "$b0" "$R") us a barrier ($b1 ms with, $(wall mg-world_barrier-base); $b0 ms without, $wb0)"
  for k in "${ks[@]}"; do
    w0=$(ms mg-world_barrier DEVICES="$k" R=0 G=$((G * k)))
    ww0=$(wall mg-world_barrier)
    w1=$(ms mg-world_barrier DEVICES="$k" R="$R" G=$((G * k)))
    echo "world of $k, G=$G a device: $(per "$w1" "$w0" "$R") us a world barrier ($w1 ms with, $(wall mg-world_barrier); $w0 ms without, $ww0); target: at most 10 us"
  done
done

echo "== 2. host iteration: launch, world barrier, allreduce of a read-back value (R=$R)"
b0=$(ms mg-world_step-base R=0)
wb0=$(wall mg-world_step-base)
b1=$(ms mg-world_step-base R="$R")
echo "one GPU, today's program (launch and read-back): $(per "$b1" "$b0" "$R") us an iteration ($b1 ms, $(wall mg-world_step-base); R=0 $b0 ms, $wb0)"
for k in "${ks[@]}"; do
  w0=$(ms mg-world_step DEVICES="$k" R=0)
  ww0=$(wall mg-world_step)
  w1=$(ms mg-world_step DEVICES="$k" R="$R")
  echo "world of $k: $(per "$w1" "$w0" "$R") us an iteration ($w1 ms, $(wall mg-world_step); R=0 $w0 ms, $ww0; prints $(cat mg-world_step.out)); target: at most 30 us"
done


[ "${MULTIGPU_TRS:-1}" != 0 ] || exit 0
if [ "$sec3" = 1 ]; then
echo "== 3. nothing lost on one GPU (and replicated on k: every device runs the whole program)"
for w in tms20 tt22; do
  cap=200000000
  [ "$w" = tt22 ] && cap=9000000
  echo "$w today's program: $(trsrun "mg-$w" CAPACITY=$cap)"
  for k in "${ks[@]}"; do
    echo "$w world program, DEVICES=$k: $(trsrun "mg-$w-w" CAPACITY=$cap DEVICES="$k")"
  done
done
fi # sec3

fi # MULTIGPU_ONLY
[ "${MULTIGPU_SCALING:-1}" != 0 ] || exit 0
echo "== 4. scaling and capacity (tree merge sort, the transformation tree), world programs placed by owner (--world)"
# prof PROG: the --time lines of PROG's last run that say where its
# device time went: kernels against the rest, the world pool's
# allocation and zeroing, the fitted CAPACITY.
prof() {
  grep -E '^gpuc: ([0-9]+ launches|world pool|world:|CAPACITY=)' "$1.err" | sed 's/^gpuc: /    /'
  gaps "$1.err"
}
# gaps ERR: a run's time between kernels a launch and, on a world, how
# much of it device 0 spent waiting for the slowest device's kernels and
# what the rest costs a stream barrier or read-back (Note [Where a
# world's gaps go] in backends/cuda).
gaps() {
  awk '/^gpuc: [0-9]+ launches/ { n = $2; for (i = 3; i <= NF; i++) if ($i == "between" && $(i - 1) == "ms") b = $(i - 2) }
    /^gpuc: world: kernels by device/ {
      k = 0; for (i = 1; i <= NF; i++) if ($i ~ /^ms[,;]?$/) { v = $(i - 1) + 0; if (k == 0) d0 = v; if (k == 0 || v > most) most = v; k++ }
      for (i = 1; i <= NF; i++) { if ($i == "stream") nb = $(i - 1); if ($i ~ /^read-backs/) nr = $(i - 1) } }
    END {
      if (n == 0 || b == "") exit
      printf "    between kernels: %.1f us a launch", 1000 * b / n
      if (k > 1) {
        w = most - d0; rest = b - w; if (rest < 0) rest = 0
        printf "; waiting for the slowest device: %.3f ms; the rest, %.3f ms, is %.1f us for each of %d stream barriers and %d read-backs", w, rest, (nb + nr > 0 ? 1000 * rest / (nb + nr) : 0), nb, nr
      }
      printf "\n" }' "$1"
}
# nf PROG: the normal form's line of PROG's last run.
nf() { head -1 "$1.out"; }
# One store size for the baselines and the weak runs, CAP slots a device
# (tree merge sort at depth 23 holds about 5.5e8 at its peak; 8e8 slots
# take 46 GB for today's program and 50 GB for the world's, which H100s
# hold), and CAP/k a device for the strong runs, so that every device
# allocates and zeroes (inside the device time) a store of the size its
# share of the work needs, not the fitted 60 GB and more.
cap=${MULTIGPU_CAP:-800000000}
base=$(ms mg-tms23 CAPACITY="$cap")
nf23=$(nf mg-tms23)
echo "one GPU, today's program, depth 23: $base ms ($(wall mg-tms23)), $(awk '/^rewrites:/ { print $2 }' mg-tms23.err) rewrites, $nf23"
prof mg-tms23
# Registers a thread of the step kernels (cuobjdump, from the binaries):
# what decides how many blocks an SM holds. The world program's run
# kernels are gpuc_many's, the one-device program's gpuc_one's.
regs() {
  cuobjdump -res-usage "$1" 2>/dev/null | awk '/Function/ { f = $2 } /REG:/ { r = ""; for (i = 1; i <= NF; i++) if ($i ~ /^(REG|STACK|LOCAL):/) r = r " " $i; if (f ~ /main_|trs_small|trs_step/) printf "    %s%s\n", substr(f, 1, 48), r }' | sort -u | head -24
}
echo "  registers, today's program:"
regs mg-tms23
echo "  registers, the world program (gpuc_one: DEVICES=1's; gpuc_many: the world's):"
regs mg-tms23-w
w1=n/a
# WORLDSTEPS values of the world runs on k >= 2 (a world of one runs the
# one-device program, which has no such parameter).
read -r -a steps <<< "${MULTIGPU_STEPS:-1 2}"
[ "${#steps[@]}" -gt 0 ] || steps=(1)
for k in "${ks[@]}"; do
  kst=("${steps[@]}")
  [ "$k" = 1 ] && kst=(-)
  for st in "${kst[@]}"; do
    arg=()
    label=
    if [ "$st" != - ]; then
      arg=(WORLDSTEPS="$st")
      label=" (WORLDSTEPS=$st)"
    fi
    s=$(ms mg-tms23-w DEVICES="$k" CAPACITY=$((cap / k)) "${arg[@]}")
    [ "$k" = 1 ] && w1=$s
    same="the same normal form"
    [ "$(nf mg-tms23-w)" = "$nf23" ] || same="A DIFFERENT NORMAL FORM: $(nf mg-tms23-w)"
    echo "strong, depth 23 on $k$label: $s ms ($(wall mg-tms23-w)), speed-up $(ratio "$base" "$s") against today's program, $(ratio "$w1" "$s") against the world on 1 (targets: within 10% on 1, 1.7 on 2, 3.0 on 4); $same"
    prof mg-tms23-w
  done
  if [ "$k" = 1 ]; then
    # DEVICES=1 runs the one-device program the world program carries
    # (Note [A world of one runs the one-device program] in
    # backends/cuda); GPUC_WORLD_OF_ONE=world runs the world's kernels on
    # one device, what each device of a world pays.
    s=$(GPUC_WORLD_OF_ONE=world ms mg-tms23-w DEVICES=1 CAPACITY="$cap")
    same="the same normal form"
    [ "$(nf mg-tms23-w)" = "$nf23" ] || same="A DIFFERENT NORMAL FORM: $(nf mg-tms23-w)"
    echo "  the world's own kernels on 1 (GPUC_WORLD_OF_ONE=world): $s ms ($(wall mg-tms23-w)), $(ratio "$base" "$s") of today's speed; $same"
    prof mg-tms23-w
  fi
  if [ "$k" = 2 ] && [ "${MULTIGPU_SWAP:-0}" = 1 ]; then
    # Which device is slower: the world's device 1, or GPU 1?
    s=$(CUDA_VISIBLE_DEVICES=1,0 ms mg-tms23-w DEVICES=2 CAPACITY=$((cap / 2)) WORLDSTEPS="${steps[0]}")
    echo "  the same on 2 with the GPUs swapped (CUDA_VISIBLE_DEVICES=1,0, device 0 on GPU 1): $s ms ($(wall mg-tms23-w))"
    prof mg-tms23-w
    s=$(CUDA_VISIBLE_DEVICES=1 GPUC_WORLD_OF_ONE=world ms mg-tms23-w DEVICES=1 CAPACITY="$cap")
    echo "  the world's own kernels on GPU 1 alone: $s ms ($(wall mg-tms23-w)), $(ratio "$base" "$s") of today's speed (on GPU 0)"
    prof mg-tms23-w
  fi
  for v in inl wide; do
    p=mg-tms23-w-$v
    if [ ! -x "$p" ]; then
      [ "${MULTIGPU_AB:-1}" = 0 ] || [ "$v" != inl ] || [ "$k" != 1 ] || echo "  $p: not built"
      continue
    fi
    what="every device function inline (-DGPUC_OUT_OF_LINE=__forceinline__)"
    [ "$v" = wide ] && what="gpuc_dist's paths before the ninth wave (-DGPUC_DIST_WIDE)"
    arg=()
    if [ "$k" = 1 ]; then
      echo "  registers, $p ($what):"
      regs "$p"
    else
      arg=(WORLDSTEPS="${steps[0]}")
    fi
    s=$(GPUC_WORLD_OF_ONE=world ms "$p" DEVICES="$k" CAPACITY=$((cap / k)) "${arg[@]}")
    same="the same normal form"
    [ "$(nf "$p")" = "$nf23" ] || same="A DIFFERENT NORMAL FORM: $(nf "$p")"
    echo "  the world's kernels on $k with $what: $s ms ($(wall "$p")), $(ratio "$base" "$s") of today's speed, $(ratio "$w1" "$s") against the world on 1; $same"
    prof "$p"
  done
done
# The remote share, from the interpreter's counters (gpuc run --json) at a
# depth it runs in seconds; the target is at most 1% of all accesses.
# MULTIGPU_SHARE=0 leaves it out (it runs on the CPU: seconds of a short turn).
for k in "${ks[@]}"; do
  [ "$k" -gt 1 ] && [ "${MULTIGPU_SHARE:-1}" != 0 ] || continue
  "$gpuc" run treemergesort.trs --world --input "$(tms 10)" --capacity 1048576 --print=summary --devices "$k" --json 2> mg-share.json > /dev/null ||
    { echo "remote share on $k: the interpreter failed:"; tail -3 mg-share.json; }
  awk -v k="$k" '{ for (i = 1; i <= NF; i++) { if ($i ~ /"local accesses"/) l = $(i + 1); if ($i ~ /"remote accesses"/) r = $(i + 1) } }
    END { gsub(/[^0-9]/, "", l); gsub(/[^0-9]/, "", r); if (l + r > 0) printf "remote share, depth 10 on %d (interpreter): %.2f%% of %d accesses (target: at most 1%%)\n", k, 100 * r / (l + r), l + r }' FS='[:,]' mg-share.json
done
# fitted FILE TERM-AT D-1 TERM-AT D LEVELS: the CPU rewriter's normal form
# and rewrite count LEVELS deeper than D, fitted from depths D-1 and D, as
# "term size S, hash H|REWRITES".
fitted() {
  local out
  out=$("$gpuc" rewrite "$1" --input "$2" --deeper "$3" --extrapolate "$4" --print=summary --stats 2>&1) || { echo "n/a ($out)|n/a"; return; }
  echo "$(echo "$out" | grep '^term size')|$(echo "$out" | awk '/^rewrites:/ { print $2 }')"
}
# check NAME PROG FITTED: PROG's normal form against the CPU rewriter's,
# fitted (exact where the deeper normal form is a tree over copies of the
# shallower one), and its rewrite count against the fitted count (affine
# in 2^depth only where every subtree does the same work: tree merge
# sort's rotated lists make it 0.03% off at depth 23).
check() {
  local got rw
  got=$(nf "$2")
  rw=$(awk '/^rewrites:/ { print $2 }' "$2.err")
  if [ "$got" = "${3%|*}" ]; then
    echo "  $1: the fitted normal form ($got): PASS; $rw rewrites, fitted ${3#*|} ($(awk -v a="$rw" -v b="${3#*|}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%+.3f%%", 100 * (a - b) / b; else print "n/a" }'))"
  else
    echo "  $1: got \"$got\", $rw rewrites; the CPU rewriter, fitted: \"${3%|*}\", ${3#*|} rewrites: FAIL"
  fi
}
# Weak scaling: depth 23 + log2 k on k devices against depth 23 on one;
# the runs of depth 24 on 2 and 25 on 4 are the capacity runs too.
for k in 2 4; do
  [ "$k" -le "$gpus" ] || continue
  d=$((23 + (k == 2 ? 1 : 2)))
  [ -x "mg-tms$d-w" ] || continue
  fit=$(fitted treemergesort.trs "$(tms 12)" "$(tms 13)" $((d - 13)))
  for st in "${steps[@]}"; do
    s=$(ms "mg-tms$d-w" DEVICES="$k" CAPACITY="$cap" WORLDSTEPS="$st")
    echo "weak and capacity, depth $d on $k (WORLDSTEPS=$st): $s ms ($(wall "mg-tms$d-w")), $(awk '/^rewrites:/ { print $2 }' "mg-tms$d-w.err") rewrites, efficiency $(ratio "$base" "$s") against today's program at depth 23, $(ratio "$w1" "$s") against the world on 1 (target: at least 0.8)"
    prof "mg-tms$d-w"
    check "tree merge sort depth $d on $k" "mg-tms$d-w" "$fit"
  done
done
[ -x mg-tt30-w ] || exit 0
s=$(ms mg-tt30-w DEVICES=2)
echo "capacity, transformation tree depth 30 on 2, CAPACITY fitted: $s ms ($(wall mg-tt30-w)), $(awk '/^rewrites:/ { print $2 }' mg-tt30-w.err) rewrites"
prof mg-tt30-w
check "transformation tree depth 30 on 2" mg-tt30-w "$(fitted transtree.trs "$(tt 12)" "$(tt 13)" 17)"
