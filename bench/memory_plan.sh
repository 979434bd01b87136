#!/usr/bin/env bash
# bench/memory_plan.sh - the memory plan's numbers: planning time of a generated N-op chain (unfused, so every
# intermediate is planned), and arena / lower bound over the fixture programs (tools/memory_plan_ratios.py).
# usage: bash bench/memory_plan.sh [FLUIDC] [OPS]   (defaults: build/bin/fluidc 4000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fluidc=${1:-$root/build/bin/fluidc}
ops=${2:-4000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/tools/gen_scaling_programs.py" chain "$ops" "$work/chain.pbtxt"
# The pass's own time (the report's `planned in`), best of 5: liveness, three shape inferences at N = 1, 2, 3
# and best-fit placement in three orders.
best=""
for _ in 1 2 3 4 5; do
  ms=$("$fluidc" emit "$work/chain.pbtxt" --no-fuse --memory-report -o "$work/out" | sed -n 's/.*planned in \([0-9.]*\) ms.*/\1/p')
  best=$(python3 -c "print(min(float(x) for x in '$best $ms'.split()))")
done
printf '| memory plan of a %s-op chain (%s variables planned) | %s ms CPU |\n' "$ops" \
  "$("$fluidc" emit "$work/chain.pbtxt" --no-fuse --memory-report -o "$work/out" | sed -n 's/.*arena: .* for \([0-9]*\) variables/\1/p')" "$best"
python3 "$root/tools/memory_plan_ratios.py" "$fluidc"
