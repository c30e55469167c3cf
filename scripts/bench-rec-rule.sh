#!/usr/bin/env bash
# The hybrid's migration rule on the GPU machine, in one call of five
# minutes at most (issue 17, Note [Migration by measured time] in
# backends/cuda/hybrid_rule.h): scripts/bench-rec.sh on the benchmarks
# that moved or missed in wave 8, each hybrid program run with the rule
# by time (the default) and then by size (REC_HYB_B=HYBRID_RULE=size),
# with the GPU-only rows, Maude and the CPU rewriter as bench-rec.sh runs
# them.
#
#   make rec-rule-artifacts        # here: BENCH_DIR (rec-rule-artifacts), those programs only
#   DIR/bench-rec-rule.sh DIR      # there
#
# REC_ONLY, REC_HYB_B and REC_DEADLINE_S (240) may be set to others.
set -uo pipefail
dir=${1:?usage: bench-rec-rule.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
export REC_ONLY=${REC_ONLY:-fib32 benchsym20 benchsym22 evalexpr benchexpr20 hanoi20 binarysearch tak36 dart factorial9 sieve1000 revnat1000}
export REC_HYB_B=${REC_HYB_B:-HYBRID_RULE=size}
export REC_DEADLINE_S=${REC_DEADLINE_S:-240}
exec "$here/bench-rec.sh" "$dir"
