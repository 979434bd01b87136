#!/usr/bin/env bash
# examples/ocr/run.sh - build the OCR example against a fluidc and read the bundled page; the lines read must be
# the page's (page_truth.txt).
# usage: run.sh [FLUIDC [BUILD_DIR]]   (defaults: fluidc from PATH, build/examples/ocr)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fluidc=${1:-$(command -v fluidc)}
build=${2:-$here/../../build/examples/ocr}
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)
cmake -S "$here" -B "$build" "${generator[@]}" -DFLUIDC="$fluidc" ${CXX:+-DCMAKE_CXX_COMPILER="$CXX"} > /dev/null
cmake --build "$build" > /dev/null
"$build/ocr" "$here/page.pgm" | tee "$build/output.txt"
diff <(sed -n 's/^line at .*: //p' "$build/output.txt") "$here/page_truth.txt" > /dev/null ||
  { echo "FAIL: the lines read differ from page_truth.txt" >&2; exit 1; }
echo "ok: every line of the page read correctly"
