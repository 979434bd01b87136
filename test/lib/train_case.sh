#!/usr/bin/env bash
# test/lib/train_case.sh - the trainer library against the binary trainer: losses to the bit, saved weights byte for byte.
# usage: train_case.sh FLUIDC TRAIN_APP FIXTURE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 app=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work/lib"
"$fluidc" build "$fixture/main.pdmodel" --startup "$fixture/startup.pdmodel" -o "$work/trainer"
"$work/trainer" --data "x=$fixture/data/x.npy" --data "y=$fixture/data/y.npy" --params "$fixture/init.pdiparams" \
  --batch-size 20 --steps 20 --no-shuffle --log-every 20 --losses-out "$work/losses.npy" --save "$work/final.pdiparams"
"$app" "$fixture" "$work/losses.npy" "$work/lib"
cmp "$work/final.pdiparams" "$work/lib/final.pdiparams"
