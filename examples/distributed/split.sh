#!/bin/sh
# examples/distributed/split.sh - split a Paddle trainer into trainer + 2 parameter-server programs with fluidc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fluidc=${FLUIDC:-$root/build/bin/fluidc}
in=$root/test/fixtures/distribute/fc_sgd
mkdir -p "$here/out"
"$fluidc" opt "$in/main.pdmodel" --startup "$in/startup.pdmodel" --passes=distribute \
  --pservers 127.0.0.1:6170,127.0.0.1:6171 --trainers 2 --trainer-id 0 --sync \
  --startup-out "$here/out/trainer.startup.pbtxt" -o "$here/out/trainer.pbtxt"
ls "$here/out"
