#!/bin/sh
# examples/distributed/run.sh - one command: split fc_sgd for 2 servers + 2 trainers, compile each role, run them on this machine.
#
# Launch as Paddle users do: every process gets Paddle's environment variables (TRAINING_ROLE,
# PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_PSERVERS_IP_PORT_LIST, PADDLE_CURRENT_ENDPOINT).
# PORTS="p0 p1" picks the servers' ports (default 6170 6171); STEPS the steps (default 40).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fluidc=${FLUIDC:-$root/build/bin/fluidc}
in=$root/test/fixtures/distribute/fc_sgd
out=$here/out
set -- ${PORTS:-6170 6171}
eps="127.0.0.1:$1,127.0.0.1:$2"
steps=${STEPS:-40}
mkdir -p "$out"

echo "== split and compile (2 trainers, 2 servers)"
for t in 0 1; do
  "$fluidc" opt "$in/main.pdmodel" --startup "$in/startup.pdmodel" --passes=distribute \
    --pservers "$eps" --trainers 2 --trainer-id $t --sync \
    --startup-out "$out/trainer$t.startup.pbtxt" -o "$out/trainer$t.pbtxt"
  "$fluidc" build "$out/trainer$t.pbtxt" --startup "$out/trainer$t.startup.pbtxt" -o "$out/trainer$t"
done
for s in 0 1; do  # the server programs are the same whichever trainer's split wrote them
  "$fluidc" build "$out/trainer0.pserver$s.pbtxt" --startup "$out/trainer0.pserver$s.startup.pbtxt" -o "$out/pserver$s"
done
# 64 rows of a noisy linear target (Python's standard library only).
python3 -c "import sys; sys.path.insert(0, '$root/test/dist'); import run_job; run_job.make_data('$out')"

echo "== run: servers on $eps, 2 trainers, batch 8 each, $steps steps"
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done' EXIT INT TERM
export PADDLE_PSERVERS_IP_PORT_LIST="$eps" PADDLE_TRAINERS_NUM=2
s=0
for ep in $(echo "$eps" | tr , ' '); do
  TRAINING_ROLE=PSERVER PADDLE_CURRENT_ENDPOINT=$ep "$out/pserver$s" > "$out/pserver$s.log" 2>&1 &
  pids="$pids $!"
  s=$((s + 1))
done
for t in 0 1; do
  TRAINING_ROLE=TRAINER PADDLE_TRAINER_ID=$t "$out/trainer$t" --data x="$out/x.npy" --data y="$out/y.npy" \
    --batch-size 8 --steps "$steps" --log-every 5 > "$out/trainer$t.log" 2>&1 &
  pids="$pids $!"
done
rc=0
for p in $pids; do wait $p || rc=1; done
pids=""
for f in trainer0 trainer1 pserver0 pserver1; do
  echo "---- $f"
  cat "$out/$f.log"
done
[ $rc -eq 0 ] && echo "== all four processes exited 0" || echo "== a process failed (see above)"
exit $rc
