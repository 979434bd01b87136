#!/usr/bin/env bash
# test/e2e/infer_case.sh - builds a fixture's inference program with fluidc (params embedded), runs it on
# one input and compares the fetched output with Paddle's.
# usage: infer_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR INPUT EXPECTED FEED_NAME FETCH_NAME
set -euo pipefail
fluidc=$1 compare=$2 fixture=$3 work=$4 input=$5 expected=$6 feed=$7 fetch=$8
rm -rf "$work" && mkdir -p "$work"
"$fluidc" build "$fixture/model.pdmodel" --params "$fixture/model.pdiparams" -o "$work/model"
"$work/model" --feed "$feed=$fixture/$input" --fetch-dir "$work/out"
# The bound, 1e-5 relative. atol 1e-7 (about one float32 ulp at 1.0): softmax probabilities near
# zero carry absolute, not relative, rounding error from the exp of a large negative logit.
"$compare" "$work/out/${fetch//\//_}.npy" "$fixture/$expected" --rtol 1e-5 --atol 1e-7
# The same binary also runs with the parameters given at run time.
"$work/model" --params "$fixture/model.pdiparams" --feed "$feed=$fixture/$input" --fetch-dir "$work/out2" > /dev/null
"$compare" "$work/out2/${fetch//\//_}.npy" "$fixture/$expected" --rtol 1e-5 --atol 1e-7
