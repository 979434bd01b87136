#!/usr/bin/env bash
# tools/build.sh - installs dependencies and builds fluidc (Release, Ninja) into build/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install_deps.sh"
. "$root/tools/compiler_cache.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${cache_flags[@]}" > /dev/null
ninja -C "$root/build" "$@"
