#!/usr/bin/env bash
# bench/compile_scaling.sh - how fluidc's compile time scales: `fluidc check` and `fluidc build` on generated
# 10,000-op elementwise chains (fused and --no-fuse) and 1,000-deep nested conditional_blocks.
# usage: bash bench/compile_scaling.sh [FLUIDC] [OPS] [DEPTH]   (defaults: build/bin/fluidc 10000 1000)
# Prints a Markdown table, one row per command (the `fluidc build` rows include clang++). Needs /usr/bin/time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fluidc=${1:-$root/build/bin/fluidc}
ops=${2:-10000}
depth=${3:-1000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/tools/gen_scaling_programs.py" chain "$ops" "$work/chain.pbtxt"
python3 "$root/tools/gen_scaling_programs.py" deep "$depth" "$work/deep.pbtxt"

# "WALL | CPU" seconds of one command, CPU being user + system time of it and its children (clang++):
# on a shared machine the wall time also counts other processes' turns, the CPU time does not.
# Its output is discarded; a failure stops the script.
seconds() {
  local t
  t=$(mktemp)
  /usr/bin/time -f '%e %U %S' -o "$t" "$@" > /dev/null
  read -r wall user sys < "$t"
  rm -f "$t"
  python3 -c "print(f'{$wall:.2f} | {$user + $sys:.2f}')"
}

printf '| command | wall s | CPU s |\n|---|---|---|\n'
printf '| fluidc check chain %s | %s |\n' "$ops" "$(seconds "$fluidc" check "$work/chain.pbtxt")"
printf '| fluidc build chain %s | %s |\n' "$ops" "$(seconds "$fluidc" build "$work/chain.pbtxt" -o "$work/chain")"
printf '| fluidc build chain %s --no-fuse | %s |\n' "$ops" \
  "$(seconds "$fluidc" build "$work/chain.pbtxt" --no-fuse -o "$work/chain_nofuse")"
printf '| fluidc check deep %s | %s |\n' "$depth" "$(seconds "$fluidc" check "$work/deep.pbtxt")"
printf '| fluidc build deep %s | %s |\n' "$depth" "$(seconds "$fluidc" build "$work/deep.pbtxt" -o "$work/deep")"
