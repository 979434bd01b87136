#!/usr/bin/env bash
# test/e2e/op_case.sh - one per-op Paddle reference (tools/op_caselib.py): builds the case's program with
# fluidc, fetching every variable Paddle recorded (the op's outputs and its inputs' gradients), runs it on
# the recorded inputs and compares each fetched array with Paddle's within the case's tolerance; then the
# same program built with --no-memory-plan must give every array bit for bit.
# usage: op_case.sh FLUIDC NPY_COMPARE CASE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 compare=$2 case_dir=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
read -r rtol atol < "$case_dir/tolerance"
fetch=() feeds=()
for f in "$case_dir"/expected/*.npy; do fetch+=("$(basename "$f" .npy)"); done
for f in "$case_dir"/inputs/*.npy; do feeds+=(--feed "$(basename "$f" .npy)=$f"); done
[ ${#fetch[@]} -gt 0 ] || { echo "no expected/*.npy in $case_dir"; exit 1; }
"$fluidc" build "$case_dir/program.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" -o "$work/case"
"$work/case" "${feeds[@]}" --fetch-dir "$work/out" > /dev/null
for name in "${fetch[@]}"; do
  echo "$name:"
  "$compare" "$work/out/$name.npy" "$case_dir/expected/$name.npy" --rtol "$rtol" --atol "$atol"
done
"$fluidc" build "$case_dir/program.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" --no-memory-plan -o "$work/unplanned"
"$work/unplanned" "${feeds[@]}" --fetch-dir "$work/unplanned_out" > /dev/null
for name in "${fetch[@]}"; do cmp "$work/out/$name.npy" "$work/unplanned_out/$name.npy"; done
echo "${#fetch[@]} arrays match Paddle, bit-identical with and without the memory plan"
