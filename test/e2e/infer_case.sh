#!/usr/bin/env bash
# test/e2e/infer_case.sh - builds a fixture's inference program with fluidc (its params embedded when it
# has any), runs it on every input set the fixture holds and compares the fetched output with Paddle's.
# Inputs follow the fixtures' naming: expected_<case>.npy is Paddle's output for the feeds <feed>_<case>.npy.
# usage: infer_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR [RTOL [ATOL]]   (1e-5 and 1e-7 unless the case says why)
set -euo pipefail
source "$(dirname "$0")/fixture_feeds.sh"
fluidc=$1 compare=$2 fixture=$3 work=$4 rtol=${5:-1e-5} atol=${6:-1e-7}
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
params=()
[ -f "$fixture/model.pdiparams" ] && params=(--params "$fixture/model.pdiparams")
"$fluidc" build "$fixture/model.pdmodel" "${params[@]}" -o "$work/model"
cases=0
for expected in "$fixture"/expected_*.npy; do
  case=$(basename "$expected" .npy)
  case=${case#expected_}
  case_feeds "$fixture" "$case"
  out=$work/out_$case
  "$work/model" "${feeds[@]}" --fetch-dir "$out"
  # The issue's bound, 1e-5 relative (unless given). atol 1e-7 (about one float32 ulp at 1.0): softmax probabilities
  # near zero carry absolute, not relative, rounding error from the exp of a large negative logit.
  "$compare" "$out"/*.npy "$expected" --rtol "$rtol" --atol "$atol"
  if [ ${#params[@]} -gt 0 ]; then  # the same binary with the parameters given at run time
    "$work/model" "${params[@]}" "${feeds[@]}" --fetch-dir "$out.runtime_params" > /dev/null
    "$compare" "$out.runtime_params"/*.npy "$expected" --rtol "$rtol" --atol "$atol"
  fi
  cases=$((cases + 1))
done
[ "$cases" -gt 0 ] || { echo "no expected_*.npy in $fixture"; exit 1; }
echo "$cases input sets match Paddle"
