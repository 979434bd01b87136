#!/usr/bin/env bash
# tools/run_sanitizers.sh - the test suite under ASan+UBSan (build-asan/), then libFuzzer smoke runs (build-fuzz/).
#
# usage: tools/run_sanitizers.sh [suite|fuzz|all]      (default: all)
#   FLUIDC_FUZZ_SECONDS  seconds per fuzz target (default 60; .ci/run sets its own, see there)
# The suite part builds everything with -fsanitize=address,undefined -fno-sanitize-recover=all and runs
# every CTest test. Binaries that `fluidc build` compiles link the sanitized runtime, so they are compiled
# with the same flags, passed through $FLUIDC_CXXFLAGS (docs/cli.md). The fuzz part builds test/fuzz with
# -DFLUIDC_FUZZ=ON, seeds each target from test/fixtures (test/fuzz/make_corpus.sh) and runs it; a crash,
# sanitizer report or unexpected exception fails the run and leaves the input in build-fuzz/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
case $what in suite|fuzz|all) ;; *) echo "usage: $0 [suite|fuzz|all]" >&2; exit 2 ;; esac
"$root/tools/install_deps.sh"
. "$root/tools/compiler_cache.sh"

san="-fsanitize=address,undefined -fno-sanitize-recover=all"
# Frame pointers and line tables: readable sanitizer stacks at little build cost.
debug="-fno-omit-frame-pointer -gline-tables-only"
# Any report is fatal (UBSan included, by -fno-sanitize-recover); leaks are reported too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "$what" != fuzz ]; then
  start=$SECONDS
  cmake -S "$root" -B "$root/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${cache_flags[@]}" \
    -DCMAKE_C_FLAGS="$san $debug" -DCMAKE_CXX_FLAGS="$san $debug" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" > /dev/null
  ninja -C "$root/build-asan"
  echo "sanitizer build: $((SECONDS - start)) s"
  start=$SECONDS
  # Left out here, and run by the normal suite: the out-of-tree projects of install.*, examples.embed_model and
  # examples.ocr (they link the sanitized runtime archives with their own, unsanitized flags), models.step_alloc (its
  # malloc-counting hook replaces the allocator that ASan must own), the CUDA tests (nvcc links generated
  # code with its own host compiler, without the sanitizer runtime that the sanitized archives need), and the
  # distributed jobs dist.* (gRPC is not built with the sanitizers; these multi-process jobs have not been
  # run under them yet, and their fault tests bound exit times that ASan would stretch).
  (cd "$root/build-asan" && FLUIDC_CXXFLAGS="$san $debug" ctest --output-on-failure -j2 \
     -E '^(install\.|examples\.(embed_model|ocr)$|models\.step_alloc$|cuda_|dist\.)')
  echo "sanitizer test suite: $((SECONDS - start)) s"
fi

if [ "$what" != suite ]; then
  start=$SECONDS
  fuzz="$root/build-fuzz"
  cmake -S "$root" -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ "${cache_flags[@]}" -DFLUIDC_FUZZ=ON > /dev/null
  ninja -C "$fuzz" fuzz_targets
  "$root/test/fuzz/make_corpus.sh" "$fuzz/seeds"
  echo "fuzz build and seeds: $((SECONDS - start)) s"
  start=$SECONDS
  secs=${FLUIDC_FUZZ_SECONDS:-60}
  mkdir -p "$fuzz/artifacts" "$fuzz/logs"
  failed=()
  for t in "$fuzz"/seeds/*; do
    t=$(basename "$t")
    # The working corpus persists between runs (later runs start from what earlier ones found).
    mkdir -p "$fuzz/corpus/$t"
    echo "fuzzing $t for ${secs} s"
    # -timeout: one input taking this long is a hang; -rss_limit_mb: a huge allocation is a finding
    # (a parser should reject the header before allocating).
    if ! "$fuzz/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$fuzz/artifacts/$t-" "$fuzz/corpus/$t" "$fuzz/seeds/$t" > "$fuzz/logs/$t.log" 2>&1; then
      failed+=("$t")
      tail -n 60 "$fuzz/logs/$t.log"
    fi
    grep -E '^stat::number_of_executed_units|^Done' "$fuzz/logs/$t.log" | tail -n 1 || true
  done
  echo "fuzz runs: $((SECONDS - start)) s"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz targets that failed: ${failed[*]} (inputs in $fuzz/artifacts/, logs in $fuzz/logs/)" >&2
    exit 1
  fi
fi
