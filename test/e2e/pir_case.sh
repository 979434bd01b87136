#!/usr/bin/env bash
# test/e2e/pir_case.sh - one Paddle 3 (PIR JSON) op case (tools/fixtures_pir_ops.py): builds the saved
# inference.json with fluidc, runs it with the saved .pdiparams given at run time on the recorded inputs,
# and compares every output Paddle 3.3.1 fetched (expected/fetch_name_<i>.npy) within the case's tolerance.
# usage: pir_case.sh FLUIDC NPY_COMPARE CASE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 compare=$2 case_dir=$3 work=$4
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
read -r rtol atol < "$case_dir/tolerance"
feeds=() params=() fetched=0
for f in "$case_dir"/inputs/*.npy; do feeds+=(--feed "$(basename "$f" .npy)=$f"); done
# A case whose layer has no parameters has no .pdiparams (paddle.jit.save writes none).
[ -f "$case_dir/inference.pdiparams" ] && params=(--params "$case_dir/inference.pdiparams")
"$fluidc" build "$case_dir/inference.json" -o "$work/model"
"$work/model" "${params[@]}" "${feeds[@]}" --fetch-dir "$work/out" > /dev/null
for f in "$case_dir"/expected/*.npy; do
  name=$(basename "$f" .npy)
  echo "$name:"
  "$compare" "$work/out/$name.npy" "$f" --rtol "$rtol" --atol "$atol"
  fetched=$((fetched + 1))
done
[ "$fetched" -gt 0 ] || { echo "no expected/*.npy in $case_dir"; exit 1; }
echo "$fetched outputs match Paddle 3.3.1"
