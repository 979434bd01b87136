#!/usr/bin/env bash
# test/models/side_by_side.sh - the multi-model test program against the standalone binaries of the same
# programs: every file it writes must be byte-identical to theirs.
# usage: side_by_side.sh FLUIDC MULTI_MODEL_TEST FIXTURES_DIR WORK_DIR
set -euo pipefail
fluidc=$1 multi=$2 fix=$3 work=$4
rm -rf "$work" && mkdir -p "$work/alone" "$work/together"
"$fluidc" build "$fix/infer_fit_a_line/model.pdmodel" -o "$work/fit"
"$fluidc" build "$fix/infer_mlp/model.pdmodel" -o "$work/mlp"
"$fluidc" build "$fix/control_flow/rnn_while/main.pdmodel" --startup "$fix/control_flow/rnn_while/startup.pdmodel" \
  -o "$work/rnn"
for b in b102 b1; do
  "$work/fit" --params "$fix/infer_fit_a_line/model.pdiparams" --feed "x=$fix/infer_fit_a_line/x_$b.npy" \
    --fetch-dir "$work/alone/fit_$b" > /dev/null
done
for b in b64 b1; do
  "$work/mlp" --params "$fix/infer_mlp/model.pdiparams" --feed "x=$fix/infer_mlp/x_$b.npy" \
    --fetch-dir "$work/alone/mlp_$b" > /dev/null
done
rnn=$fix/control_flow/rnn_while
"$work/rnn" --data "x=$rnn/data/x.npy" --data "y=$rnn/data/y.npy" --params "$rnn/init.pdiparams" --batch-size 8 \
  --steps 20 --no-shuffle --log-every 20 --losses-out "$work/alone/rnn_losses.npy" \
  --save "$work/alone/rnn_final.pdiparams" > /dev/null
"$multi" "$fix" "$work/together"
compared=0
for f in "$work"/alone/*_b*/*.npy; do
  rel=${f#"$work/alone/"}
  cmp "$f" "$work/together/$rel"
  compared=$((compared + 1))
done
for t in thread_a thread_b; do
  cmp "$work/alone/rnn_losses.npy" "$work/together/rnn_losses_$t.npy"
  cmp "$work/alone/rnn_final.pdiparams" "$work/together/rnn_final_$t.pdiparams"
  compared=$((compared + 2))
done
# Four inference results and two training runs, or the comparisons above proved nothing.
[ "$compared" -eq 8 ] || { echo "compared $compared files, expected 8"; exit 1; }
echo "$compared files identical to the standalone binaries'"
