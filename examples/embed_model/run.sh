#!/usr/bin/env bash
# examples/embed_model/run.sh - configure and build the example against a fluidc, classify the test digits.
# usage: run.sh [FLUIDC [BUILD_DIR]]   (defaults: fluidc from PATH, build/examples/embed_model)
# Paddle's own accuracy for these weights on these digits is 0.8721 (259/297): the output must say so.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fluidc=${1:-$(command -v fluidc)}
build=${2:-$here/../../build/examples/embed_model}
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$build" "${generator[@]}" -DFLUIDC="$fluidc" ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"} > /dev/null
cmake --build "$build" > /dev/null
"$build/classify_digits" < "$here/digits.txt" | tee "$build/output.txt"
grep -q "accuracy 0.8721 (259/297)" "$build/output.txt"
