#!/usr/bin/env bash
# tools/check_hermetic.sh - fails when a test, the CI entry or the build reads outside the repository
# (a fresh clone has no ../shared beside it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
if hits=$(grep -rnE '(\.\./)+shared|/work/shared|%shared' test .ci tools/run_tests.sh tools/build.sh CMakeLists.txt \
            --include='*' 2>/dev/null | grep -v '^test/fixtures/' ); then
  echo "tests or build read outside the repository:"
  echo "$hits"
  exit 1
fi
echo "hermetic: no test or build step reads outside the repository"
