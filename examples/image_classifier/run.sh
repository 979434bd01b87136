#!/usr/bin/env bash
# examples/image_classifier/run.sh - compile a convolutional image classifier saved by Paddle into one binary
# (weights embedded) and classify the bundled image, printing the top-5 labels.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ex=$root/examples/image_classifier
out=${OUT:-$root/build/examples/image_classifier}
"$root/tools/build.sh" fluidc > /dev/null
mkdir -p "$out"
"$root/build/bin/fluidc" build "$ex/model.pdmodel" --params "$ex/model.pdiparams" -o "$out/classifier"
echo "the image (examples/image_classifier/digit.pgm, 8x8 greyscale):"
# The picture's 64 bytes (after the 11-byte PGM header) as characters, darkest to brightest.
od -An -v -t u1 -w8 -j 11 "$ex/digit.pgm" |
  awk '{ s = "  "; for (i = 1; i <= NF; ++i) s = s substr(" .:-=+*#%@", int($i / 256 * 10) + 1, 1); print s }'
"$out/classifier" --feed x="$ex/x_digit.npy" --top 5 --labels "$ex/labels.txt"
