#!/usr/bin/env bash
# test/e2e/head_case.sh - a deployed detection/segmentation program (tools/detect_headlib.py) against Paddle 2.6.2,
# or as Paddle 3 saves it (tools/fixtures_pir_detect.py, against Paddle 3.3.1):
# builds FIXTURE/model.pdmodel (or FIXTURE/inference.json) with its weights embedded, feeds inputs/*.npy and compares each fetch with
# expected/NAME.npy as FIXTURE/compare says, one line per fetch: NAME RTOL ATOL [ties COL | ties-from OTHER COL]
# (ties: npy_compare --ties, rows compared as sets within runs of equal scores; OTHER names another fetch whose
# expected column COL gives the runs). Every LoD an output carries must equal Paddle's. More input sets (another
# input size) in FIXTURE/cases/TAG/{inputs,expected} are compared the same way, by the same binary. The program
# built without the memory plan must give every output bit for bit.
# usage: head_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR
set -euo pipefail
source "$(dirname "$0")/compare_lod.sh"
fluidc=$1 compare=$2 fixture=$3 work=$4
source "$(dirname "$0")/work_dir.sh"
fresh_work_dir "$work"
stem=model program=model.pdmodel
[ -f "$fixture/inference.json" ] && stem=inference program=inference.json
"$fluidc" build "$fixture/$program" --params "$fixture/$stem.pdiparams" -o "$work/model"
"$fluidc" build "$fixture/$program" --params "$fixture/$stem.pdiparams" --no-memory-plan -o "$work/unplanned"

# check_case DIR OUT: runs both binaries on DIR/inputs and compares with DIR/expected.
check_case() {
  local dir=$1 out=$2 feeds=() names=() f name rtol atol mode key col ties lod
  for f in "$dir"/inputs/*.npy; do feeds+=(--feed "$(basename "$f" .npy)=$f"); done
  "$work/model" "${feeds[@]}" --fetch-dir "$out" > /dev/null
  while read -r name rtol atol mode key col; do
    [ -n "$name" ] || continue
    names+=("$name")
    ties=()
    case ${mode:-} in
      "") ;;
      ties) ties=(--ties "$key") ;;
      ties-from) ties=(--ties-from "$dir/expected/$key.npy" "$col") ;;
      *) echo "bad line in $fixture/compare: $name $rtol $atol $mode"; exit 2 ;;
    esac
    echo "$name:"
    "$compare" "$out/$name.npy" "$dir/expected/$name.npy" --rtol "$rtol" --atol "$atol" "${ties[@]}"
    compare_lod "$compare" "$out/$name" "$dir/expected/$name" "$name"
  done < "$fixture/compare"
  [ ${#names[@]} -gt 0 ] || { echo "no fetch listed in $fixture/compare"; exit 1; }
  "$work/unplanned" "${feeds[@]}" --fetch-dir "$out.unplanned" > /dev/null
  for name in "${names[@]}"; do cmp "$out/$name.npy" "$out.unplanned/$name.npy"; done
  echo "${#names[@]} outputs match Paddle, bit-identical with and without the memory plan"
}

check_case "$fixture" "$work/out"
cases=1
for dir in "$fixture"/cases/*/; do
  [ -d "$dir" ] || continue
  dir=${dir%/}
  echo "case $(basename "$dir"):"
  check_case "$dir" "$work/out_$(basename "$dir")"
  cases=$((cases + 1))
done
echo "$cases input sets match Paddle"
