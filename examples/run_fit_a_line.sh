#!/usr/bin/env bash
# examples/run_fit_a_line.sh - fluidc's main job end to end: build fluidc, compile the seed's fit_a_line
# training program (written by Paddle 2.6.2) into a native trainer, train it on the housing data, save it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ex=$root/examples/fit_a_line
out=${OUT:-$root/build/examples/fit_a_line}
"$root/tools/build.sh" fluidc > /dev/null
mkdir -p "$out"
echo "== fluidc build: main + startup program -> native trainer"
"$root/build/bin/fluidc" build "$ex/main.pdmodel" --startup "$ex/startup.pdmodel" -o "$out/trainer"
ls -l "$out/trainer" | awk '{print "   " $5 " bytes: " $9}'
echo "== train 100 epochs on 404 rows of housing data (batch 20), starting from Paddle's initial weights"
"$out/trainer" --data x="$ex/data/train_x.npy" --data y="$ex/data/train_y.npy" --params "$ex/init.pdiparams" \
  --batch-size 20 --epochs 100 --seed 1 --log-every 500 --save "$out/trained.pdiparams"
echo "== the checkpoint is Paddle's combined format; Paddle's load_vars reads it back: $out/trained.pdiparams"
