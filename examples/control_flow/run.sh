#!/usr/bin/env bash
# examples/control_flow/run.sh - control flow compiled to native if/while: the seed's less_than + cond
# program for both branches, then an RNN written with while_loop trained and run as native binaries.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cf=$root/test/fixtures/control_flow
out=${OUT:-$root/build/examples/control_flow}
"$root/tools/build.sh" fluidc > /dev/null
mkdir -p "$out"
fluidc=$root/build/bin/fluidc

echo "== the seed's example: out = cond(x < 5, 1, 0) — two conditional_blocks + select_input"
"$fluidc" build "$cf/seed_cond/model.pdmodel" -o "$out/seed_cond"
for case in true false; do
  printf 'x = %s -> ' "$(od -An -t d8 -j 128 "$cf/seed_cond/x_$case.npy" | tr -s ' ')"
  "$out/seed_cond" --feed x="$cf/seed_cond/x_$case.npy" | sed 's/^.*: //'
done

echo "== an RNN over 5 time steps (paddle.static.nn.while_loop), trained through while_grad"
"$fluidc" build "$cf/rnn_while/main.pdmodel" --startup "$cf/rnn_while/startup.pdmodel" -o "$out/rnn_trainer"
"$out/rnn_trainer" --data x="$cf/rnn_while/data/x.npy" --data y="$cf/rnn_while/data/y.npy" \
  --params "$cf/rnn_while/init.pdiparams" --batch-size 8 --epochs 30 --seed 3 --log-every 100 \
  --save-dir "$out/rnn_trained"

echo "== the RNN's inference program, run with the weights just trained"
"$fluidc" build "$cf/infer_rnn_while/model.pdmodel" -o "$out/rnn"
"$out/rnn" --params "$out/rnn_trained" --feed x="$cf/infer_rnn_while/x_b6.npy" --fetch-dir "$out/rnn_out"
