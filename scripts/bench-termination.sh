#!/usr/bin/env bash
# Termination-analysis benchmark on the development machine (needs Go, clang-16, opt-16, z3):
# every kernel of ../shared/corpus/kernels goes through the translator and the analysis, one
# process per kernel under a time limit, and the script prints each kernel's times and verdict,
# then the median and maximum time per kernel with and without clang, and the coverage.
#
#   scripts/bench-termination.sh [CORPUS] [LIMIT_S]
#
# Per kernel: compile = clang-16 + opt-16 + the text fixes (Note [Compiling external kernels]),
# translate = llir parse + translation to its.System, analyze = the analysis of every system
# (z3 start included), all wall-clock; cpu = the processor time of translate + analyze, z3's
# included, which hardly depends on the machine's load; queries = the solver queries; units = z3's
# resource units (Note [Solver work in resource units] in analysis/termination). The verdicts do
# not depend on the load: the engine's budgets count solver queries (Note [Work budget]) and
# z3's resource units. "Without clang" is translate + analyze; "with clang" adds
# compile. A kernel that runs past LIMIT_S (default 60) counts as TIMEOUT (and UNKNOWN in the
# coverage). Coverage: kernels with loops, and among them TRUE / FALSE / UNKNOWN; a kernel's
# verdict is FALSE if one of its systems is, else UNKNOWN if one is, else TRUE (TRUE if ...
# counts as TRUE). The load average is printed before and after the run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$root/../shared/corpus/kernels}" && pwd) || exit 1
limit=${2:-60}
bin=$(mktemp -d)/fromllvm.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go test -c -o "$bin" ./analysis/fromllvm) || exit 1
echo "bench-termination: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(clang-16 --version | head -1), $(z3 --version); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-78s %9s %9s %9s %7s %7s %10s %s\n' kernel compile_ms transl_ms analyze_ms cpu_ms queries units verdict
rows=$(mktemp)
for f in "$corpus"/*/*.cl "$corpus"/*/*.cu; do
	name=${f#"$corpus"/}
	line=$(cd "$root/analysis/fromllvm" && timeout "$limit" "$bin" -test.run '^TestDump$' -dump "$f" -bench 2>&1 | grep '^BENCH ')
	if [ -z "$line" ]; then
		line="BENCH 0 0 $((limit * 1000)) TIMEOUT -1 0 $((limit * 1000)) 0"
	fi
	read -r _ c t a v loops q cpu units <<<"$line"
	printf '%-78s %9s %9s %9s %7s %7s %10s %s\n' "$name" "$c" "$t" "$a" "$cpu" "$q" "$units" "$v"
	echo "$c $t $a $v $loops $q $cpu" >>"$rows"
done
awk -v limit="$limit" '
function median(a, n,   i, j, x) {
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j+1] = a[j]; a[j+1] = x }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{
	n++; without[n] = $2 + $3; with[n] = $1 + $2 + $3; cpu[n] = $7; qs[n] = $6
	if (without[n] > maxw) maxw = without[n]
	if (with[n] > maxc) maxc = with[n]
	if ($7 > maxcpu) maxcpu = $7
	if ($6 > maxq) maxq = $6
	if ($5 != 0) { loops++; v[$4]++ }
}
END {
	mw = median(without, n); mc = median(with, n); mcpu = median(cpu, n); mq = median(qs, n)
	printf "bench-termination: %d kernels; time per kernel without clang: median %.0f ms, max %.0f ms; with clang: median %.0f ms, max %.0f ms\n", n, mw, maxw, mc, maxc
	printf "bench-termination: processor time per kernel without clang: median %.0f ms, max %.0f ms; solver queries: median %d, max %d\n", mcpu, maxcpu, mq, maxq
	t = v["TRUE"] + 0; f = v["FALSE"] + 0; u = v["UNKNOWN"] + v["TIMEOUT"]
	printf "bench-termination: %d kernels with loops: %d TRUE, %d FALSE, %d UNKNOWN (%d past %d s); TRUE %.1f%% of the loop kernels, %.1f%% of those not FALSE\n", loops, t, f, u, v["TIMEOUT"] + 0, limit, 100 * t / loops, 100 * t / (loops - f)
}' "$rows"
rm -f "$rows"
echo "bench-termination: done $(date -u +%Y-%m-%dT%H:%MZ); load average $(cut -d' ' -f1-3 /proc/loadavg)"
