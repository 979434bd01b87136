// runtime/coll/nccl_comm.h - the process's one NCCL communicator (CUDA target): device choice, bootstrap over MPI, bounded waits.
//
// Used by nccl_ops.cc and nccl_main.cc only; generated code sees nccl_ops.h,
// which needs neither NCCL's nor CUDA's headers.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "runtime/coll/comm.h"

namespace fluidc::coll::nccl {

/// This rank's device: its local rank on the host (OMPI_COMM_WORLD_LOCAL_RANK,
/// else the MPI rank) modulo the host's device count. Every rank learns
/// every other's host and device (MPI_Allgather): two ranks on one device
/// fail on all ranks, naming both (NCCL does not support that). Sets
/// cu::options().device and makes it current.
void choose_device();
/// Rank 0 makes an ncclUniqueId and MPI_Bcast's it; ncclCommInitRank on the
/// chosen device. Both bounded by the watchdog (the connect bound).
void init_comm();
bool comm_up();
ncclComm_t comm();
/// Fails (rt::Error) naming `what` and NCCL's reason, for a failed call.
void check(ncclResult_t r, const char* what);
/// Waits for the collective just enqueued on `stream`, polling it and the
/// communicator's asynchronous error: an NCCL error fails (rt::Error); still
/// running after collective_bound_ms(), the rank prints which call (as the
/// MPI watchdog does), aborts the communicator and exits 1.
void wait(cudaStream_t stream, const CallInfo& call);
/// ncclCommDestroy after a clean run.
void finalize_comm();
/// ncclCommAbort after an error on this rank (the others are then ended by mpirun).
void abort_comm();

}  // namespace fluidc::coll::nccl
