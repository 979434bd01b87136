#!/usr/bin/env bash
# test/e2e/autodiff_lod_case.sh - fluidc's own backward pass on a forward-only program with LoD input
# (tools/fixtures_autodiff_lod.py) against Paddle's gradients on one ragged batch, then the same gradients
# bit for bit with the memory plan off.
# usage: autodiff_lod_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR LOSS_VAR
set -euo pipefail
fluidc=$1 compare=$2 fixture=$3 work=$4 loss=$5
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
feeds=()
for f in "$fixture"/inputs/*.npy; do
  [[ $f =~ \.lod[0-9]+\.npy$ ]] && continue
  name=$(basename "$f" .npy)
  feeds+=(--feed "$name=$f")
  [ -e "$fixture/inputs/$name.lod0.npy" ] && feeds+=(--lod "$name=$fixture/inputs/$name.lod0.npy")
done
"$fluidc" opt "$fixture/forward.pdmodel" --passes=autodiff --loss "$loss" -o "$work/backward.pdmodel"
fetch=()
for g in "$fixture"/grads/*.npy; do fetch+=("$(basename "$g" .npy)@GRAD"); done
for plan in planned unplanned; do
  flags=()
  [ $plan = unplanned ] && flags=(--no-memory-plan)
  "$fluidc" build "$work/backward.pdmodel" --fetch "$(IFS=,; echo "${fetch[*]}")" "${flags[@]}" -o "$work/$plan"
  "$work/$plan" --params "$fixture/params.pdiparams" "${feeds[@]}" --fetch-dir "$work/$plan.out" > /dev/null
done
# 1e-5 relative as in autodiff_case.sh, atol 1e-7 for entries that are zero up to float32 rounding.
for g in "$fixture"/grads/*.npy; do
  name=$(basename "$g" .npy)@GRAD
  "$compare" "$work/planned.out/$name.npy" "$g" --rtol 1e-5 --atol 1e-7
  cmp "$work/planned.out/$name.npy" "$work/unplanned.out/$name.npy"
done
echo "${#fetch[@]} gradients match Paddle's, bit-identical with and without the memory plan"
