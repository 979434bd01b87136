#!/usr/bin/env bash
# bench/build_time.sh - `fluidc build` time with the embedded Clang (with and without its precompiled header)
# against the external clang++ process (--cxx clang++), on fit_a_line, the MLP, LeNet and ResNet-18 trainers.
# usage: bash bench/build_time.sh [FLUIDC] [RUNS]   (defaults: build/bin/fluidc 5)
# Prints a Markdown table of medians over RUNS builds: wall seconds, and CPU seconds (user + system of fluidc
# and its children: on a shared machine the wall time also counts other processes' turns, the CPU time does
# not). The precompiled header is built once before the timed runs (a private cache directory), as after
# the first build on a machine. Needs /usr/bin/time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fluidc=${1:-$root/build/bin/fluidc}
runs=${2:-5}
"$fluidc" --version | grep -q "^embedded compiler: .*clang" || { echo "$fluidc has no embedded compiler" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/cache
# fluidc maps the working directory out of the build (-ffile-prefix-map=CWD=.) and then refuses its precompiled
# header for headers under it, so run from a directory that holds neither fluidc's headers nor the programs.
cd "$work"
unset CXX FLUIDC_NO_PCH
fx=$root/test/fixtures
declare -A programs=(
  [fit_a_line]="$fx/fit_a_line_sgd/main.pdmodel --startup $fx/fit_a_line_sgd/startup.pdmodel"
  [mlp]="$root/examples/mlp_classifier/main.pdmodel --startup $root/examples/mlp_classifier/startup.pdmodel"
  [lenet]="$fx/lenet_digits/main.pdmodel --startup $fx/lenet_digits/startup.pdmodel"
  [resnet18]="$fx/resnet18_train/main.pdmodel --startup $fx/resnet18_train/startup.pdmodel"
)

# "WALL CPU" medians of RUNS runs of the command (output discarded).
median_of() {
  local t=$work/time all=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$t" "$@" > /dev/null 2>&1
    all+=("$(cat "$t")")
  done
  printf '%s\n' "${all[@]}" | python3 -c '
import sys, statistics
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
print(f"{statistics.median(r[0] for r in rows):.2f} {statistics.median(r[1] + r[2] for r in rows):.2f}")'
}

printf '| program | clang++ process wall / CPU s | embedded, no PCH wall / CPU s | embedded + PCH wall / CPU s | speed-up (CPU) vs clang++: no PCH, PCH |\n'
printf '|---|---|---|---|---|\n'
for name in fit_a_line mlp lenet resnet18; do
  # shellcheck disable=SC2086  # the program's arguments are split on purpose
  set -- ${programs[$name]}
  "$fluidc" build "$@" -o "$work/$name" > /dev/null  # builds the precompiled header for these flags
  read -r ew ec < <(median_of "$fluidc" build "$@" --cxx clang++ -o "$work/$name")
  read -r nw nc < <(FLUIDC_NO_PCH=1 median_of "$fluidc" build "$@" -o "$work/$name")
  read -r pw pc < <(median_of "$fluidc" build "$@" -o "$work/$name")
  echo "| $name | $ew / $ec | $nw / $nc | $pw / $pc | $(python3 -c "print(f'{$ec/$nc:.2f}x, {$ec/$pc:.2f}x')") |"
  echo "$name done ($runs runs each)" >&2
done
