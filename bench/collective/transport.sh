#!/usr/bin/env bash
# bench/collective/transport.sh - the measurement behind choosing OpenMPI over Gloo for runtime/coll (docs/distributed.md).
# Runs each transport's in-place fp32 all-reduce between 2 local ranks RUNS times (default 5): MPI over
# shared memory (vader) and over loopback TCP, Gloo over loopback TCP. Needs libopenmpi-dev and libgloo-dev
# (apt-get install libgloo-dev; Gloo is only needed here, not by fluidc). Usage: transport.sh [RUNS]
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mpicc -O2 "$here/mpi_allreduce.c" -o "$work/mpi_allreduce"
clang++ -O2 -std=c++17 "$here/gloo_allreduce.cc" -o "$work/gloo_allreduce" -lgloo -lpthread
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
for i in $(seq "$runs"); do
  echo "== run $i"
  mpirun $root --oversubscribe --bind-to none -np 2 --mca btl self,vader "$work/mpi_allreduce" | sed 's/^/shm /'
  mpirun $root --oversubscribe --bind-to none -np 2 --mca btl self,tcp --mca btl_tcp_if_include lo \
    --mca oob_tcp_if_include lo "$work/mpi_allreduce" | sed 's/^/tcp /'
  rm -rf "$work/store" && mkdir "$work/store"
  "$work/gloo_allreduce" 1 2 "$work/store" & "$work/gloo_allreduce" 0 2 "$work/store" | sed 's/^/tcp /'
  wait
  /usr/bin/time -f "mpirun -np 2 of a program that only inits MPI: %e s wall" \
    mpirun $root --oversubscribe --bind-to none -np 2 --mca btl self,tcp --mca btl_tcp_if_include lo \
    --mca oob_tcp_if_include lo true 2>&1 | tail -1
done
