#!/usr/bin/env bash
# test/e2e/head_case.sh - a deployed detection/segmentation program (tools/detect_headlib.py) against Paddle 2.6.2:
# builds FIXTURE/model.pdmodel with its weights embedded, feeds inputs/*.npy and compares each fetch with
# expected/NAME.npy as FIXTURE/compare says, one line per fetch: NAME RTOL ATOL [ties COL | ties-from OTHER COL]
# (ties: npy_compare --ties, rows compared as sets within runs of equal scores; OTHER names another fetch whose
# expected column COL gives the runs). Every LoD an output carries must equal Paddle's. The same program built
# without the memory plan must give every output bit for bit.
# usage: head_case.sh FLUIDC NPY_COMPARE FIXTURE_DIR WORK_DIR
set -euo pipefail
fluidc=$1 compare=$2 fixture=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
feeds=()
for f in "$fixture"/inputs/*.npy; do feeds+=(--feed "$(basename "$f" .npy)=$f"); done
"$fluidc" build "$fixture/model.pdmodel" --params "$fixture/model.pdiparams" -o "$work/model"
"$work/model" "${feeds[@]}" --fetch-dir "$work/out" > /dev/null
names=()
while read -r name rtol atol mode key col; do
  [ -n "$name" ] || continue
  names+=("$name")
  ties=()
  case ${mode:-} in
    "") ;;
    ties) ties=(--ties "$key") ;;
    ties-from) ties=(--ties-from "$fixture/expected/$key.npy" "$col") ;;
    *) echo "bad line in $fixture/compare: $name $rtol $atol $mode"; exit 2 ;;
  esac
  echo "$name:"
  "$compare" "$work/out/$name.npy" "$fixture/expected/$name.npy" --rtol "$rtol" --atol "$atol" "${ties[@]}"
  for f in "$work/out/$name".lod*.npy "$fixture/expected/$name".lod*.npy; do
    [ -e "$f" ] || continue
    lod=$(basename "$f")
    [ -e "$fixture/expected/$lod" ] || { echo "MISMATCH: $lod: fluidc gives $name a LoD Paddle does not"; exit 1; }
    [ -e "$work/out/$lod" ] || { echo "MISMATCH: $lod: Paddle gives $name a LoD fluidc does not"; exit 1; }
    "$compare" "$work/out/$lod" "$fixture/expected/$lod" --rtol 0 --atol 0 > /dev/null ||
      { echo "MISMATCH: $lod"; exit 1; }
    [[ $f != "$fixture"/* ]] || echo "$lod: equal"  # once per LoD (both sides list it)
  done
done < "$fixture/compare"
[ ${#names[@]} -gt 0 ] || { echo "no fetch listed in $fixture/compare"; exit 1; }
"$fluidc" build "$fixture/model.pdmodel" --params "$fixture/model.pdiparams" --no-memory-plan -o "$work/unplanned"
"$work/unplanned" "${feeds[@]}" --fetch-dir "$work/unplanned_out" > /dev/null
for name in "${names[@]}"; do cmp "$work/out/$name.npy" "$work/unplanned_out/$name.npy"; done
echo "${#names[@]} outputs match Paddle, bit-identical with and without the memory plan"
