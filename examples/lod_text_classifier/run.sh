#!/usr/bin/env bash
# examples/lod_text_classifier/run.sh - train a text classifier on LoD (sequence) input with a fluidc-compiled
# trainer, then classify the test sentences with a fluidc-compiled inference binary reading the trained weights.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ex=$root/examples/lod_text_classifier
out=${OUT:-$root/build/examples/lod_text_classifier}
fluidc=${FLUIDC:-$root/build/bin/fluidc}
[ -x "$fluidc" ] || "$root/tools/build.sh" fluidc > /dev/null
mkdir -p "$out"
"$fluidc" build "$ex/main.pdmodel" --startup "$ex/startup.pdmodel" -o "$out/trainer"
"$out/trainer" --data words="$ex/data/train_words.npy" --lod words="$ex/data/train_words.lod0.npy" \
  --data label="$ex/data/train_label.npy" --params "$ex/init.pdiparams" --batch-size 32 --epochs 5 --no-shuffle \
  --log-every 25 --save-dir "$out/trained"
"$fluidc" build "$ex/model.pdmodel" -o "$out/classifier"
"$out/classifier" --params "$out/trained" --feed words="$ex/data/test_words.npy" \
  --lod words="$ex/data/test_words.lod0.npy" --fetch-dir "$out/predictions"
prob=$(ls "$out"/predictions/*.npy | grep -v '\.lod[0-9]*\.npy$' | head -1)
echo "class probabilities for the 200 test sentences: $prob"
if python3 -c "import numpy" 2> /dev/null; then
  python3 - "$prob" "$ex/data/test_label.npy" <<'PY'
import sys, numpy as np
p, y = np.load(sys.argv[1]), np.load(sys.argv[2]).ravel()
print(f"test accuracy: {(p.argmax(1) == y).mean():.4f} ({(p.argmax(1) == y).sum()}/{len(y)})")
PY
fi
