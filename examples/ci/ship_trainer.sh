#!/usr/bin/env bash
# examples/ci/ship_trainer.sh - the CI pipeline's one step: build and install fluidc, compile the digits trainer and
# classifier with add_fluid_program (examples/cmake_project), train, classify with the checkpoint, and collect the
# binaries and the checkpoint as artefacts.
#
# usage: ship_trainer.sh [ARTEFACTS_DIR]         (default: ./artefacts)
#   $FLUIDC_PREFIX     an installed fluidc to use as is (nothing is built)
#   $FLUIDC_BUILD_DIR  an already-built fluidc tree to install from (its fluidc target is brought up to date)
#   $EPOCHS            training epochs (default 10)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
artefacts=$(mkdir -p "${1:-artefacts}" && cd "${1:-artefacts}" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/fluidc-ci-XXXXXX")
trap 'rm -rf "$work"' EXIT
data=$root/examples/mlp_classifier

# 1. fluidc, installed into a prefix as a user would have it.
prefix=${FLUIDC_PREFIX:-}
if [ -z "$prefix" ]; then
  build=${FLUIDC_BUILD_DIR:-$root/build}
  if [ -n "${FLUIDC_BUILD_DIR:-}" ]; then ninja -C "$build" fluidc > /dev/null
  else "$root/tools/build.sh" fluidc > /dev/null; fi
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" > /dev/null
fi
echo "using $("$prefix/bin/fluidc" --version) at $prefix"

# 2. The trainer and the inference binary, compiled by add_fluid_program at build time.
cmake -S "$root/examples/cmake_project" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$prefix" > /dev/null
ninja -C "$work/build" digits_trainer digits_classifier

# 3. Train from Paddle's initial weights; the checkpoint in both of Paddle's layouts.
"$work/build/digits_trainer" --data x="$data/data/train_x.npy" --data label="$data/data/train_label.npy" \
  --params "$data/init.pdiparams" --batch-size 32 --epochs "${EPOCHS:-10}" --no-shuffle --log-every 47 \
  --save "$work/checkpoint.pdiparams" --save-dir "$work/checkpoint"

# 4. The inference binary on the checkpoint: class probabilities for the test split.
"$work/build/digits_classifier" --params "$work/checkpoint" --feed x="$data/data/test_x.npy" \
  --fetch-dir "$work/predictions"
if python3 -c "import numpy" 2> /dev/null; then
  python3 - "$work/predictions/save_infer_model_scale_0.tmp_0.npy" "$data/data/test_label.npy" <<'PY'
import sys, numpy as np
p, y = np.load(sys.argv[1]), np.load(sys.argv[2]).ravel()
print(f"test accuracy: {(p.argmax(1) == y).mean():.4f} ({(p.argmax(1) == y).sum()}/{len(y)})")
PY
fi

# 5. Artefacts: the two binaries (they need only libc and libm), the checkpoint, the predictions, checksums.
rm -rf "${artefacts:?}"/*
cp "$work/build/digits_trainer" "$work/build/digits_classifier" "$work/checkpoint.pdiparams" "$artefacts/"
cp -r "$work/checkpoint" "$work/predictions" "$artefacts/"
(cd "$artefacts" && find . -type f ! -name SHA256SUMS | sort | xargs sha256sum > SHA256SUMS)
echo "artefacts in $artefacts:"
ls "$artefacts"
