#!/bin/sh
# examples/distributed/run_collective.sh - one command: split fc_sgd for 2 collective ranks, compile once, run under mpirun on this machine.
#
# One binary for every rank: mpirun gives each its rank (its shard of the data) and wires them up;
# gradients are summed by MPI_Allreduce (docs/distributed.md, "Running a collective job").
# RANKS the ranks (default 2), STEPS the steps (default 40).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fluidc=${FLUIDC:-$root/build/bin/fluidc}
in=$root/test/fixtures/distribute/fc_sgd
out=$here/out
ranks=${RANKS:-2}
steps=${STEPS:-40}
mkdir -p "$out"

echo "== split and compile ($ranks ranks)"
"$fluidc" opt "$in/main.pdmodel" --startup "$in/startup.pdmodel" --passes=distribute --collective --nranks "$ranks" \
  --startup-out "$out/collective.startup.pbtxt" -o "$out/collective.pbtxt"
"$fluidc" build "$out/collective.pbtxt" --startup "$out/collective.startup.pbtxt" -o "$out/collective"
# 64 rows of a noisy linear target (Python's standard library only).
python3 -c "import sys; sys.path.insert(0, '$root/test/dist'); import run_job; run_job.make_data('$out')"

echo "== run: mpirun -np $ranks, batch 8 per rank, $steps steps (loopback TCP)"
root_flag=""
[ "$(id -u)" = 0 ] && root_flag="--allow-run-as-root"
exec mpirun $root_flag --oversubscribe --bind-to none --mca btl self,tcp --mca btl_tcp_if_include lo \
  --mca oob_tcp_if_include lo --tag-output -np "$ranks" "$out/collective" --data x="$out/x.npy" --data y="$out/y.npy" \
  --batch-size 8 --steps "$steps" --log-every 10 --no-shuffle
