#!/usr/bin/env bash
# make test's wall time and memory peak (issue 20, item 4), on the development machine:
# runs `GOFLAGS=-count=1 make test` under /usr/bin/time -v and samples `ps` once a second
# meanwhile, then prints make test's result, its wall and processor time, the largest
# single process's peak RSS (time -v's "Maximum resident set size"), the peak RSS seen
# per command name by the sampler (the test binaries are named PKG.test), and the load
# average before and after.
#
#   scripts/make-test-mem.sh [LOGDIR]
#
# LOGDIR (default: a new temporary folder) keeps make test's output (make.log), time -v's
# report (time.log) and the samples (ps.log: "seconds rss_kb command" a line). The sampler
# sees a process only if it lives across a sample, so short ones may be missed; time -v's
# figure misses none but does not name the process. Only make test's own processes are
# sampled, not those of others who share the machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=${1:-$(mktemp -d)}
mkdir -p "$logs" || exit 1
echo "make-test-mem: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(nproc) cores at $(git -C "$root" rev-parse --short=12 HEAD); load average $(cut -d' ' -f1-3 /proc/loadavg); logs in $logs"
start=$(date +%s)
(cd "$root" && GOFLAGS=-count=1 /usr/bin/time -v -o "$logs/time.log" make test >"$logs/make.log" 2>&1) &
job=$!
: >"$logs/ps.log"
while kill -0 "$job" 2>/dev/null; do
	now=$(($(date +%s) - start))
	# make test's processes only: the descendants of $job (others may share the machine).
	ps -eo pid=,ppid=,rss=,comm= | awk -v t="$now" -v top="$job" '
		{ parent[$1] = $2; rss[$1] = $3; comm[$1] = $4 }
		END {
			for (p in parent) {
				q = p
				for (i = 0; i < 64 && q != top && q > 1; i++) q = parent[q]
				if (q == top && rss[p] > 102400) print t, rss[p], comm[p]
			}
		}' >>"$logs/ps.log"
	sleep 1
done
wait "$job"
rc=$?
echo "make test: rc $rc; load average after $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E 'Elapsed \(wall|User time|System time|Maximum resident' "$logs/time.log" | sed 's/^[[:space:]]*/  /'
echo "peak RSS per command (sampled, over 100 MB):"
awk '{ if ($2 > peak[$3]) peak[$3] = $2 } END { for (c in peak) printf "  %-24s %7.2f GB\n", c, peak[c] / 1048576 }' "$logs/ps.log" | sort -k2 -n -r | head -12
echo "package times:"
grep -E '^(ok|FAIL|---)' "$logs/make.log" | sort -k3 -n -r | head -12 | sed 's/^/  /'
exit "$rc"
