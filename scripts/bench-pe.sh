#!/usr/bin/env bash
# Partial-evaluation benchmark on the GPU machine (needs nvcc and a GPU,
# not Go): examples/fork/carve.fork scans a 4 GiB image for file headers
# in three variants, and the script prints every ratio.
#
#   make bench-artifacts           # here: static gpuc and carve-data, carve.fork, the header table
#   scripts/bench-pe.sh DIR        # there
#
# The variants are `gpuc compile` of carve.fork with the header table
# static (--static sigs=carve.sigs, from shared/corpus/carving when
# present, else carve.fork's own) and the image an input (--input data):
#   global    --pe-placement=global: not specialized, headers in global memory
#   constant  --pe-placement=constant: not specialized, headers in constant memory
#   nofilter  --pe-prefilter=false: specialized, without the prefilter
#   spec      the default: specialized by partial-eval, with a prefilter
#             in front of the scan (Note [Static prefilters])
# carve-data makes the image (random bytes, a header planted every MiB)
# and the matches expected in it; every variant's output is checked
# against them. Times are the programs' kernel times (--time: "kernels X
# ms"), the best of REPS runs; carve_stream.cu measures the device's
# streaming bandwidth on a buffer of the same size. The specialization
# overhead is the wall time of `gpuc compile` for spec, which includes it,
# and, for the program compiled with --pe-runtime, the time it reports for
# specializing again at run time on another table (carve.fork's own when
# carve.sigs is the corpus's, else the first half of carve.sigs): three
# times with an empty cache, which runs gpuc and NVRTC, and once from the
# cache.
#
# Environment: GPUC_ARCH (sm_90), BYTES (4294967296), PROCS (1048576),
# REPS (3), IMAGE (DIR/carve.img; kept between runs of the same BYTES).
# GPUC_CHECKS=off compiles without checks of indices and divisors
# (docs/BENCHMARKS.md, the cost of checks).
set -uo pipefail
dir=${1:?usage: bench-pe.sh DIR}
cd "$dir" || exit 1
arch=${GPUC_ARCH:-sm_90}
bytes=${BYTES:-4294967296}
procs=${PROCS:-1048576}
reps=${REPS:-3}
image=${IMAGE:-carve.img}
echo "bench-pe: $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $(nvcc --version | tail -1)"
echo "bench-pe: $(grep -c . carve.sigs) table values in carve.sigs ($(cat carve.sigs.from)), image of $bytes bytes, PROCS=$procs"

# wall CMD...: runs CMD and prints its wall time in ms.
wall() {
  local t0 t1
  t0=$(date +%s%N)
  "$@" || return 1
  t1=$(date +%s%N)
  awk -v d="$((t1 - t0))" 'BEGIN { printf "%.1f", d / 1e6 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# kernels FILE: the kernel time that --time reported in FILE.
kernels() { sed -n 's/.*kernels \([0-9.]*\) ms.*/\1/p' "$1" | head -1; }

flags=(--input data --static sigs=carve.sigs)
for v in global constant; do
  ./gpuc compile carve.fork --checks="${GPUC_CHECKS:-on}" "${flags[@]}" --pe-placement=$v -o carve-$v.cu || exit 1
done
./gpuc compile carve.fork --checks="${GPUC_CHECKS:-on}" "${flags[@]}" --pe-prefilter=false -o carve-nofilter.cu || exit 1
spec_ms=$(wall ./gpuc compile carve.fork --checks="${GPUC_CHECKS:-on}" "${flags[@]}" --report -o carve-spec.cu 2> carve-spec.report) || exit 1
plain_ms=$(wall ./gpuc compile carve.fork --checks="${GPUC_CHECKS:-on}" "${flags[@]}" --pe-placement=global --emit=cuda -o /dev/null) || exit 1
./gpuc compile carve.fork --checks="${GPUC_CHECKS:-on}" "${flags[@]}" --pe-runtime -o carve-rt.cu || exit 1
for v in global constant nofilter spec; do nvcc -O3 -arch="$arch" -o carve-$v carve-$v.cu & done
nvcc -O3 -arch="$arch" -o carve-rt carve-rt.cu -lnvrtc -lcuda &
nvcc -O3 -arch="$arch" -o carve_stream carve_stream.cu &
wait
for v in global constant nofilter spec rt; do [ -x carve-$v ] || { echo "bench-pe: nvcc failed for carve-$v" >&2; exit 1; }; done

if [ ! -f "$image" ] || [ "$(cat "$image.bytes" 2>/dev/null)" != "$bytes $(cksum < carve.sigs)" ]; then
  echo "bench-pe: making the image: $(wall ./carve-data image -sigs carve.sigs -n "$bytes" -gap 1048576 -o "$image" -expect carve.expected) ms"
  echo "$bytes $(cksum < carve.sigs)" > "$image.bytes"
fi
echo "bench-pe: $(wc -l < carve.expected) matches expected"

declare -A best
for v in global constant nofilter spec; do
  best[$v]=""
  for ((r = 0; r < reps; r++)); do
    ./carve-$v N="$bytes" GEN=0 PROCS="$procs" data=@"$image" --time > carve-$v.out 2> carve-$v.err || { echo "bench-pe: carve-$v failed"; cat carve-$v.err; exit 1; }
    k=$(kernels carve-$v.err)
    best[$v]=$(awk -v a="${best[$v]}" -v b="$k" 'BEGIN { print (a == "" || b < a) ? b : a }')
  done
  if cmp -s carve-$v.out carve.expected; then same="output as expected"; else same="OUTPUT DIFFERS"; diff carve-$v.out carve.expected | head -5; fi
  echo "$v: kernels ${best[$v]} ms (best of $reps); $same"
done
stream=$(./carve_stream N="$bytes")
echo "$stream"
stream_ms=$(echo "$stream" | sed -n 's/stream: \([0-9.]*\) ms.*/\1/p')

# Without --static, the run-time program runs the kernels nvcc compiled,
# specialized (and prefiltered) on carve.sigs at compile time.
./carve-rt N="$bytes" GEN=0 PROCS="$procs" data=@"$image" --time > carve-rt.out 2> carve-rt.err || { echo "bench-pe: carve-rt failed"; cat carve-rt.err; exit 1; }
if cmp -s carve-rt.out carve.expected; then same="output as expected"; else same="OUTPUT DIFFERS"; diff carve-rt.out carve.expected | head -5; fi
echo "carve-rt without --static: kernels $(kernels carve-rt.err) ms; $same"

# Run-time specialization on another table, with an empty cache and then
# from it; the output must be the other table's matches.
if [ "$(cat carve.sigs.from)" = "shared/corpus/carving" ]; then
  ./carve-data sigs -o other.sigs
else
  awk '{ v[NR] = $1 } END { k = 1; n = 0; while (v[k] != 0 && n < 18) { k += v[k] + 1; n++ } for (i = 1; i < k; i++) print v[i]; print 0 }' carve.sigs > other.sigs
fi
./carve-data scan -sigs other.sigs -image "$image" -expect other.expected
# Each miss has a cache of its own, so NVRTC also sees a new file name.
misses=()
caches=()
for run in miss miss miss hit; do
  [ "$run" = miss ] && cache=$(mktemp -d) && caches+=("$cache")
  GPUC="$PWD/gpuc" GPUC_CACHE="$cache" ./carve-rt N="$bytes" GEN=0 PROCS="$procs" data=@"$image" --static sigs=other.sigs --time > carve-rt.out 2> carve-rt.err || { echo "bench-pe: carve-rt failed"; cat carve-rt.err; exit 1; }
  if cmp -s carve-rt.out other.expected; then same="output as expected"; else same="OUTPUT DIFFERS"; diff carve-rt.out other.expected | head -5; fi
  line=$(grep 'run-time specialization' carve-rt.err | sed 's/^gpuc: //')
  echo "run-time specialization ($run): $line; kernels $(kernels carve-rt.err) ms; $same"
  [ "$run" = miss ] && misses+=("$(echo "$line" | sed -n 's/^run-time specialization: \([0-9.]*\) ms.*/\1/p')")
done
rm -rf "${caches[@]}"
miss_median=$(printf '%s\n' "${misses[@]}" | sort -n | sed -n 2p)

echo "== results"
echo "specialized vs global memory:   $(ratio "${best[global]}" "${best[spec]}")x faster (target: 8x)"
echo "specialized vs constant memory: $(ratio "${best[constant]}" "${best[spec]}")x faster (target: 3x)"
echo "constant vs global memory:      $(ratio "${best[global]}" "${best[constant]}")x faster"
echo "prefilter (Note [Static prefilters]): $(ratio "${best[nofilter]}" "${best[spec]}")x faster than specialized without it"
echo "specialized scan at $(awk -v s="$stream_ms" -v k="${best[spec]}" 'BEGIN { printf "%.0f", 100 * s / k }')% of the streaming bandwidth (target: 80%)"
echo "specialization overhead: gpuc compile of spec $spec_ms ms, of global (no specialization) $plain_ms ms; at run time with an empty cache ${misses[*]} ms, median $miss_median ms (target: 500 ms)"
grep 'partial-eval: func scan_dev' carve-spec.report
