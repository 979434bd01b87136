#!/usr/bin/env bash
# bench/memory_rss.sh - peak RSS of compiled trainers with and without the memory plan: the MLP (mlp_adam) and
# the CNN (lenet_digits) fixtures, 5 steps at batch 256 (the fixtures hold 640 and 320 rows), one thread.
# usage: bash bench/memory_rss.sh [FLUIDC] [BATCH]   (defaults: build/bin/fluidc 256). Needs /usr/bin/time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fluidc=${1:-$root/build/bin/fluidc}
batch=${2:-256}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '| trainer (batch %s) | peak RSS, plan | peak RSS, --no-memory-plan | change | planned tensors: arena vs without a plan |\n' "$batch"
printf '|---|---|---|---|---|\n'
for m in mlp_adam lenet_digits; do
  fix=$root/test/fixtures/$m
  "$fluidc" build "$fix/main.pdmodel" --startup "$fix/startup.pdmodel" --memory-report -o "$work/$m.plan" > "$work/$m.report"
  "$fluidc" build "$fix/main.pdmodel" --startup "$fix/startup.pdmodel" --no-memory-plan -o "$work/$m.owned"
  declare -A rss
  for v in plan owned; do
    /usr/bin/time -f '%M' -o "$work/$m.$v.rss" "$work/$m.$v" --data "x=$fix/data/x.npy" --data "label=$fix/data/label.npy" \
      --params "$fix/init.pdiparams" --batch-size "$batch" --steps 5 --no-shuffle --log-every 100 --threads 1 > /dev/null
    rss[$v]=$(cat "$work/$m.$v.rss")
  done
  # Planned bytes at this batch: static + per-batch x N, against the same tensors each in its own buffer.
  bytes=$(python3 - "$work/$m.report" "$batch" <<'PY'
import re, sys
text, n = open(sys.argv[1]).read(), int(sys.argv[2])
arena = plain = 0
for kind, a, u in re.findall(r"(static|per-batch) arena: (\d+) bytes.*\n\s*without a plan (\d+)", text):
    k = n if kind == "per-batch" else 1
    arena, plain = arena + int(a) * k, plain + int(u) * k
print(f"{arena / 1e6:.2f} MB vs {plain / 1e6:.2f} MB")
PY
)
  printf '| %s | %s KB | %s KB | %+.1f%% | %s |\n' "$m" "${rss[plan]}" "${rss[owned]}" \
    "$(python3 -c "print(100.0 * (${rss[plan]} - ${rss[owned]}) / ${rss[owned]})")" "$bytes"
done
