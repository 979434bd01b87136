#!/usr/bin/env bash
# test/e2e/op_autodiff_case.sh - fluidc's own backward pass through one op (tools/op_autodiff_indexing.py): appends
# the gradient ops to the forward-only program with `fluidc opt --passes=autodiff`, builds it fetching every
# parameter's gradient, runs it on the recorded parameters and inputs and compares with Paddle's gradients.
# usage: op_autodiff_case.sh FLUIDC NPY_COMPARE CASE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 compare=$2 case_dir=$3 work=$4
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
read -r rtol atol < "$case_dir/tolerance"
loss=$(cat "$case_dir/loss")
feeds=() fetch=()
for f in "$case_dir"/inputs/*.npy; do feeds+=(--feed "$(basename "$f" .npy)=$f"); done
for f in "$case_dir"/expected/*.npy; do fetch+=("$(basename "$f" .npy)"); done
"$fluidc" opt "$case_dir/forward.pdmodel" --passes=autodiff --loss "$loss" -o "$work/backward.pdmodel"
"$fluidc" build "$work/backward.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" -o "$work/grads"
"$work/grads" --params "$case_dir/init.pdiparams" "${feeds[@]}" --fetch-dir "$work/out" > /dev/null
for name in "${fetch[@]}"; do
  echo "$name:"
  "$compare" "$work/out/$name.npy" "$case_dir/expected/$name.npy" --rtol "$rtol" --atol "$atol"
done
echo "${#fetch[@]} gradients from fluidc's autodiff match Paddle's"
