#!/usr/bin/env bash
# test/e2e/train_case.sh - builds a fixture's training program with fluidc, trains 20 steps from Paddle's
# initial weights on Paddle's data, and compares per-step losses and final weights with Paddle's.
# usage: train_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR BATCH_SIZE
set -euo pipefail
fluidc=$1 compare=$2 fixture=$3 work=$4 batch=$5
rm -rf "$work" && mkdir -p "$work"
"$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" -o "$work/trainer"
data=()
for f in "$fixture"/data/*.npy; do
  name=$(basename "$f" .npy)
  data+=(--data "$name=$f")
done
"$work/trainer" "${data[@]}" --params "$fixture/init.pdiparams" --batch-size "$batch" --steps 20 --no-shuffle \
  --log-every 5 --losses-out "$work/losses.npy" --save "$work/final.pdiparams"
# Losses: the bound, 1e-4 relative, over all 20 steps.
"$compare" "$work/losses.npy" "$fixture/losses.npy" --rtol 1e-4
