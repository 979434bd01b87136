#!/usr/bin/env bash
# test/e2e/synth_train_case.sh - one training step of a model too large to commit weights for, on weights
# and input synthesized by test/tools/synth_params.cc, against Paddle 2.6.2's loss and selected persistables
# after the step (tools/fixtures_resnet_train.py).
# usage: synth_train_case.sh FLUIDC NPY_COMPARE SYNTH_PARAMS FIXTURE_DIR WORK_DIR FEED DIMS BATCH RTOL ATOL
set -euo pipefail
fluidc=$1 compare=$2 synth=$3 fixture=$4 work=$5 feed=$6 dims=$7 batch=$8 rtol=$9 atol=${10}
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
"$synth" --parameters "$fixture/main.pdmodel" "$work/init.pdiparams"
"$synth" --input "$feed" "$dims" "$work/$feed.npy"
"$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" -o "$work/trainer"
data=(--data "$feed=$work/$feed.npy")
for f in "$fixture"/*.npy; do
  name=$(basename "$f" .npy)
  [ "$name" = losses ] || data+=(--data "$name=$f")
done
"$work/trainer" "${data[@]}" --params "$work/init.pdiparams" --batch-size "$batch" --steps 1 --no-shuffle \
  --losses-out "$work/losses.npy" --save "$work/final.pdiparams" --save-dir "$work/after"
"$compare" "$work/losses.npy" "$fixture/losses.npy" --rtol "$rtol"
# Updated weights and batch-norm statistics; atol (the caller's reason) for weights that pass near zero.
for f in "$fixture"/after/*.npy; do
  "$compare" "$work/after/$(basename "$f" .npy)" "$f" --rtol "$rtol" --atol "$atol"
done
