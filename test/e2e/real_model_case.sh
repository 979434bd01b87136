#!/usr/bin/env bash
# test/e2e/real_model_case.sh - a real program (saved by someone else's Paddle, no weights) against Paddle 2.6.2
# running it on the same synthesized weights and input (tools/fixtures_real_models.py); the output must be
# bit-identical with the memory plan off.
# usage: real_model_case.sh FLUIDC NPY_COMPARE SYNTH_PARAMS PROGRAM REFERENCE_DIR WORK_DIR RTOL ATOL
set -euo pipefail
fluidc=$1 compare=$2 synth=$3 program=$4 ref=$5 work=$6 rtol=$7 atol=$8
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
read -r feed dims < "$ref/input"
read -r fetch < "$ref/fetch"
"$synth" "$program" "$work/weights.pdiparams"
"$synth" --input "$feed" "$dims" "$work/input.npy"
"$fluidc" build "$program" -o "$work/model"
"$work/model" --params "$work/weights.pdiparams" --feed "$feed=$work/input.npy" --fetch-dir "$work/out" > /dev/null
"$compare" "$work/out/${fetch//\//_}.npy" "$ref/output.npy" --rtol "$rtol" --atol "$atol"
"$fluidc" build "$program" --no-memory-plan -o "$work/unplanned"
"$work/unplanned" --params "$work/weights.pdiparams" --feed "$feed=$work/input.npy" --fetch-dir "$work/unplanned_out" \
  > /dev/null
cmp "$work/out/${fetch//\//_}.npy" "$work/unplanned_out/${fetch//\//_}.npy"
echo "bit-identical with and without the memory plan"
