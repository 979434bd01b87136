// runtime/coll/nccl_ops.h - what the CUDA target's generated code calls for c_allreduce_sum and c_broadcast (NCCL on device buffers), and main().
//
// Included by model.cu (through kernels/cuda/coll.h) only for programs with
// collective ops; only those binaries link fluidc_coll_nccl, NCCL and MPI.
// No NCCL, CUDA or MPI header here: nvcc compiles model.cu without them.
#pragma once

#include "runtime/cuda/cuda_model.h"
#include "runtime/model.h"

namespace fluidc::coll {

/// c_allreduce_sum on the device: out = the sum of x over every rank
/// (ncclAllReduce, in place; out may be x). fp32, fp64, int32 and int64;
/// other dtypes are an Error naming it. `nranks` as allreduce_sum (coll.h).
void nccl_allreduce_sum(const cu::DTensor& x, cu::DTensor& out, int ring_id, int nranks);

/// c_broadcast on the device: out = rank `root`'s x (ncclBroadcast). The
/// root's dtype and shape travel first (MPI, on the host): a rank whose x
/// differs is an Error naming both.
void nccl_broadcast(const cu::DTensor& x, cu::DTensor& out, int root, int ring_id);

/// main() of CUDA binaries with collective ops: run_coll_main (MPI job,
/// launch checks, program check) with a GPU per rank and an NCCL
/// communicator; without a CUDA device, exits 77 before joining the job.
int run_nccl_main(int argc, char** argv, const rt::ModelInfo& info);

}  // namespace fluidc::coll
