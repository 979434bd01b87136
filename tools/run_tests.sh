#!/usr/bin/env bash
# tools/run_tests.sh - the whole test suite on a fresh machine: install deps, build, run every CTest test.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j2 "$@"
