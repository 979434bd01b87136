#!/usr/bin/env bash
# test/e2e/op_case.sh - one per-op Paddle reference (tools/op_caselib.py): builds the case's program with
# fluidc, fetching every variable Paddle recorded (the op's outputs and its inputs' gradients), runs it on
# the recorded inputs and compares each fetched array with Paddle's within the case's tolerance; then the
# same program built with --no-memory-plan must give every array bit for bit.
# usage: op_case.sh FLUIDC NPY_COMPARE CASE_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/compare_lod.sh"
fluidc=$1 compare=$2 case_dir=$3 work=$4
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
read -r rtol atol < "$case_dir/tolerance"
fetch=() feeds=()
# NAME.lod<l>.npy beside NAME.npy: LoD offsets (fed with --lod; fetched ones compared exactly).
is_lod() { [[ $1 =~ \.lod[0-9]+\.npy$ ]]; }
for f in "$case_dir"/expected/*.npy; do is_lod "$f" || fetch+=("$(basename "$f" .npy)"); done
for f in "$case_dir"/inputs/*.npy; do
  is_lod "$f" && continue
  name=$(basename "$f" .npy) levels=$(ls "$case_dir/inputs/$name".lod*.npy 2>/dev/null | sort -V | paste -sd, || true)
  feeds+=(--feed "$name=$f")
  [ -z "$levels" ] || feeds+=(--lod "$name=$levels")
done
[ ${#fetch[@]} -gt 0 ] || { echo "no expected/*.npy in $case_dir"; exit 1; }
"$fluidc" build "$case_dir/program.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" -o "$work/case"
"$work/case" "${feeds[@]}" --fetch-dir "$work/out" > /dev/null
for name in "${fetch[@]}"; do
  echo "$name:"
  "$compare" "$work/out/$name.npy" "$case_dir/expected/$name.npy" --rtol "$rtol" --atol "$atol"
  compare_lod "$compare" "$work/out/$name" "$case_dir/expected/$name" "$name"
done
"$fluidc" build "$case_dir/program.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" --no-memory-plan -o "$work/unplanned"
"$work/unplanned" "${feeds[@]}" --fetch-dir "$work/unplanned_out" > /dev/null
for name in "${fetch[@]}"; do cmp "$work/out/$name.npy" "$work/unplanned_out/$name.npy"; done
echo "${#fetch[@]} arrays match Paddle, bit-identical with and without the memory plan"
