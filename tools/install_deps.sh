#!/usr/bin/env bash
# tools/install_deps.sh - installs fluidc's build and test dependencies from Debian 12 packages, if missing.
set -euo pipefail
packages=(cmake ninja-build ccache clang libclang-rt-14-dev llvm-14-tools python3 libprotobuf-dev protobuf-compiler libfmt-dev catch2 libdnnl-dev
          libclang-cpp14-dev libclang-14-dev libclang-common-14-dev llvm-14-dev  # the embedded compiler
          libgrpc++-dev protobuf-compiler-grpc  # the parameter-server runtime (runtime/dist)
          libopenmpi-dev openmpi-bin)  # the collective runtime (runtime/coll) and mpirun
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
