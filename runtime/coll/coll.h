// runtime/coll/coll.h - what generated code of the collective ops calls (c_allreduce_sum, c_broadcast), and main() of collective binaries.
//
// Included (through kernels/coll.h) only by programs holding collective ops;
// only those binaries link fluidc_coll and MPI (docs/distributed.md,
// "Collective mode"). mpi.h stays out of this header: generated code
// compiles without MPI's include paths.
#pragma once

#include "runtime/model.h"
#include "runtime/tensor.h"

namespace fluidc::coll {

/// c_allreduce_sum: out = the sum of x over every rank (out may be x: in
/// place). fp32, fp64, int32 and int64; other dtypes are an Error.
/// `nranks`: the ranks the program was split for (`fluidc opt --nranks`;
/// 0 when unknown), checked against the ranks the job runs with.
void allreduce_sum(const rt::Tensor& x, rt::Tensor& out, int ring_id, int nranks);

/// c_broadcast: out = rank `root`'s x on every rank (out may be x). The
/// root's dtype and shape travel first: a rank whose x differs is an Error.
void broadcast(const rt::Tensor& x, rt::Tensor& out, int root, int ring_id);

/// What a device build adds to run_coll_main (the CUDA target: a GPU per
/// rank and an NCCL communicator, runtime/coll/nccl_main.cc). Null members
/// are skipped.
struct DeviceHooks {
  void (*start)() = nullptr;   ///< after the MPI job is up and the program checked, before the model exists
  void (*finish)() = nullptr;  ///< after a clean run, before MPI_Finalize
  void (*abort)() = nullptr;   ///< after an error on this rank, before MPI_Abort
};

/// main() of generated binaries with collective ops: joins the MPI job
/// (rank and size from mpirun; Paddle's PADDLE_TRAINER_ID/PADDLE_TRAINERS_NUM
/// must agree when set) and runs the trainer driver on this rank's shard.
int run_coll_main(int argc, char** argv, const rt::ModelInfo& info, const DeviceHooks* hooks = nullptr);

}  // namespace fluidc::coll
