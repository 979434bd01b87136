#!/usr/bin/env bash
# examples/mlp_classifier/run.sh - train the digits MLP with a fluidc-compiled trainer, then classify the
# test split with a fluidc-compiled inference binary that reads the trained weights by name.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ex=$root/examples/mlp_classifier
out=${OUT:-$root/build/examples/mlp_classifier}
"$root/tools/build.sh" fluidc > /dev/null
mkdir -p "$out"
fluidc=$root/build/bin/fluidc
"$fluidc" build "$ex/main.pdmodel" --startup "$ex/startup.pdmodel" -o "$out/trainer"
"$out/trainer" --data x="$ex/data/train_x.npy" --data label="$ex/data/train_label.npy" \
  --params "$ex/init.pdiparams" --batch-size 32 --epochs 10 --no-shuffle --log-every 47 \
  --save-dir "$out/trained"
"$fluidc" build "$ex/model.pdmodel" -o "$out/classifier"
"$out/classifier" --params "$out/trained" --feed x="$ex/data/test_x.npy" --fetch-dir "$out/predictions"
echo "class probabilities for the 297 test images: $out/predictions/save_infer_model_scale_0.tmp_0.npy"
if python3 -c "import numpy" 2> /dev/null; then
  python3 - "$out/predictions/save_infer_model_scale_0.tmp_0.npy" "$ex/data/test_label.npy" <<'PY'
import sys, numpy as np
p, y = np.load(sys.argv[1]), np.load(sys.argv[2]).ravel()
print(f"test accuracy: {(p.argmax(1) == y).mean():.4f} ({(p.argmax(1) == y).sum()}/{len(y)})")
PY
fi
