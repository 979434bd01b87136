// runtime/coll/nccl_comm.cc - the NCCL communicator: a device per rank, the unique id over MPI, waits bounded as MPI's are.
//
// All of Paddle's rings map onto this one communicator, as they map onto
// MPI_COMM_WORLD on the CPU (comm.cc): every collective is issued in program
// order, the same on every rank, on the step's one stream.
//
// Timeouts: NCCL, like MPI, waits for a missing peer forever. A collective
// is enqueued and then waited for here, polling the stream and
// ncclCommGetAsyncError (NCCL's own errors: a peer's broken connection)
// until it ends or outlives the bound. Calls that may block the host
// (ncclCommInitRank; an enqueue that connects to its peers on first use)
// are bounded by comm.cc's watchdog thread instead.
#include "runtime/coll/nccl_comm.h"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "runtime/cuda/cuda_model.h"
#include "runtime/error.h"

namespace fluidc::coll::nccl {
namespace {

ncclComm_t g_comm = nullptr;

// The rank's index among the ranks of its host: mpirun says (OpenMPI's
// variable); without it (a singleton, another launcher) the MPI rank.
int local_rank() {
  if (const char* v = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK"); v && *v) return std::atoi(v);
  return comm_rank();
}

void check_mpi(int rc, const char* what) {
  if (rc != MPI_SUCCESS) rt::fail(fmt::format("{} failed on rank {} of {}", what, comm_rank(), comm_size()));
}

// Each rank's host and device, so that every rank sees the same clash and fails alike.
struct Placement {
  char host[MPI_MAX_PROCESSOR_NAME + 1];
  int device;
};

}  // namespace

void check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return;
  const char* last = g_comm ? ncclGetLastError(g_comm) : ncclGetLastError(nullptr);
  rt::fail(fmt::format("NCCL error in {} on rank {} of {}: {}{}{}", what, comm_rank(), comm_size(),
                       ncclGetErrorString(r), last && *last ? ": " : "", last ? last : ""));
}

void choose_device() {
  int count = 0;
  cu::check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 1) rt::fail("no CUDA device");  // run_nccl_main exits 77 before this
  const int device = local_rank() % count;
  Placement mine{};
  int len = 0;
  MPI_Get_processor_name(mine.host, &len);
  mine.device = device;
  std::vector<Placement> all(comm_size());
  {
    Bounded bound(CallInfo{"the exchange of the ranks' devices"});
    check_mpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgather (devices)");
  }
  for (int a = 0; a < comm_size(); ++a)
    for (int b = a + 1; b < comm_size(); ++b)
      if (all[a].device == all[b].device && std::strcmp(all[a].host, all[b].host) == 0)
        rt::fail(fmt::format("ranks {} and {} would share CUDA device {} of host {}: NCCL does not support two ranks "
                             "of one communicator on one device; run at most {} rank{} on that host (its CUDA "
                             "devices), or fewer ranks (mpirun -np)",
                             a, b, all[a].device, all[a].host, count, count == 1 ? "" : "s"));
  cu::options().device = device;
  cu::check(cudaSetDevice(device), "cudaSetDevice");
}

void init_comm() {
  ncclUniqueId id{};
  if (comm_rank() == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  {
    Bounded bound(CallInfo{"the broadcast of NCCL's unique id"});
    check_mpi(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast (NCCL unique id)");
  }
  // Every rank joins here: bounded like the first collectives (ranks start at different speeds).
  Bounded bound(CallInfo{"ncclCommInitRank"});
  check(ncclCommInitRank(&g_comm, comm_size(), id, comm_rank()), "ncclCommInitRank");
}

bool comm_up() { return g_comm != nullptr; }

ncclComm_t comm() {
  if (!g_comm) rt::fail("collective ops on the device run only in the binary's own main, under mpirun (docs/distributed.md)");
  return g_comm;
}

void wait(cudaStream_t stream, const CallInfo& call) {
  using clock = std::chrono::steady_clock;
  const int64_t bound_ms = collective_bound_ms();
  const auto deadline = clock::now() + std::chrono::milliseconds(bound_ms);
  for (int polls = 0;; ++polls) {
    const cudaError_t e = cudaStreamQuery(stream);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) cu::check(e, call.op);
    ncclResult_t async = ncclSuccess;
    check(ncclCommGetAsyncError(g_comm, &async), "ncclCommGetAsyncError");
    if (async != ncclSuccess && async != ncclInProgress) check(async, call.op);
    if (clock::now() > deadline) {
      print_stuck(call, bound_ms);
      // ncclCommAbort ends the communicator's kernels; it could itself wait on
      // a wedged device, so the watchdog bounds it too.
      Bounded abort_bound(CallInfo{"ncclCommAbort (after a timeout)"}, 5000);
      ncclCommAbort(g_comm);
      _exit(1);  // as the MPI watchdog: mpirun then ends the other ranks
    }
    // Spin briefly (a step's all-reduce usually ends within microseconds of
    // its enqueue on a healthy job), then poll every 50 us.
    if (polls < 2000) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void finalize_comm() {
  if (!g_comm) return;
  // Flushes the communicator's pending work, which may need the peers: bounded.
  Bounded bound(CallInfo{"ncclCommDestroy"});
  ncclCommDestroy(g_comm);
  g_comm = nullptr;
}

void abort_comm() {
  if (!g_comm) return;
  Bounded bound(CallInfo{"ncclCommAbort"}, 5000);
  ncclCommAbort(g_comm);
  g_comm = nullptr;
}

}  // namespace fluidc::coll::nccl
