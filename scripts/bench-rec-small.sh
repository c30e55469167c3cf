#!/usr/bin/env bash
# The REC benchmarks that Maude reduces in under 100 ms, factorial9 and
# revnat1000 among them, on the GPU machine in one call of four minutes
# (issue 17): scripts/bench-rec.sh on that list, whose table gives each
# hybrid run timed beside phase 2's jobs (as until wave 9) and again on
# a quiet machine, alternating with Maude (Note [Short runs on a quiet
# machine] in bench-rec.sh), with the GPU-only rows, Maude and the CPU
# rewriter as bench-rec.sh runs them; and in the quiet phase, the same
# programs by main's gpuc before wave 10 (hyb-NAME.base, linked as
# before: scripts/rec-base-artifacts.sh), for the column "before".
#
#   make rec-small-artifacts          # here: SMALL_DIR (rec-small-artifacts)
#   DIR/bench-rec-small.sh DIR        # there
#
# REC_ONLY (DIR/rec-small.list), QUIET_REPEAT (7) and REC_DEADLINE_S
# (200) may be set to others.
set -uo pipefail
dir=${1:?usage: bench-rec-small.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
[ -n "${REC_ONLY:-}" ] || REC_ONLY=$(cat "$dir/rec-small.list" 2> /dev/null) || { echo "bench-rec-small: no $dir/rec-small.list (make rec-small-artifacts)"; exit 1; }
export REC_ONLY
export QUIET_REPEAT=${QUIET_REPEAT:-7} QUIET_MS=${QUIET_MS:-300}
export REC_DEADLINE_S=${REC_DEADLINE_S:-200}
exec "$here/bench-rec.sh" "$dir"
