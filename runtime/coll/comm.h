// runtime/coll/comm.h - the process's one MPI communicator: set up once by run_coll_main, used by the collective ops.
#pragma once

#include <cstdint>

#include "runtime/tensor.h"

namespace fluidc::coll {

struct CommConfig {
  int64_t timeout_ms = 5000;          ///< bound on one collective after the first all-reduce (a peer dead or stuck)
  int64_t first_timeout_ms = 30000;   ///< up to it (ranks start and load data at different speeds)
};

/// MPI_Init_thread (once); rank and size of MPI_COMM_WORLD.
void init_comm(const CommConfig& c);
bool comm_up();
int comm_rank();
int comm_size();
/// Fails (on every rank) unless every rank runs the program with this sha256:
/// ranks of different splits would all-reduce mismatched tensors.
void check_same_program(const char* program, const char* sha256);
/// Fails unless the job has the ranks the program was split for (`nranks`;
/// 0: unknown, not checked): its loss gradient is scaled by 1/nranks.
void check_job_size(const char* op, int nranks);

/// c_broadcast's first half, on the host over MPI (for the CPU and the NCCL
/// op alike): checks `root`, sends the root's dtype and shape (`dtype`,
/// `shape` there) to every rank, and fails on a rank that holds a tensor
/// (`holds`) of another type or shape, naming both. Returns the root's.
struct TensorHeader {
  rt::DType dtype;
  rt::Shape shape;
};
TensorHeader broadcast_header(int root, int ring_id, bool holds, rt::DType dtype, const rt::Shape& shape);

/// A collective in flight, for the timeout message.
struct CallInfo {
  const char* op = "";
  int ring_id = -1;    ///< -1: not a ring op (the program check, set-up)
  int64_t count = 0;   ///< elements (all-reduce), or the root (broadcast)
};
/// The bound on the next collective: the connect bound up to the end of the
/// first all-reduce, then --dist-timeout-ms.
int64_t collective_bound_ms();
/// The first all-reduce has finished: later collectives get the shorter bound.
void first_allreduce_done();
/// Prints "error: rank R of N: <call> waited over <ms> ms for the other ranks..." (does not exit).
void print_stuck(const CallInfo& call, int64_t bound_ms);
/// Arms the watchdog thread for one blocking call: still inside it after
/// `bound_ms` (default: collective_bound_ms()), the process prints
/// print_stuck's message and exits 1.
class Bounded {
 public:
  explicit Bounded(const CallInfo& call, int64_t bound_ms = -1);
  ~Bounded();
  Bounded(const Bounded&) = delete;
  Bounded& operator=(const Bounded&) = delete;
};

/// After a clean run: waits (bounded) until every rank has finished its steps.
void end_of_run_barrier();
/// MPI_Finalize after a clean run, past end_of_run_barrier().
void finalize_comm();
/// After an error on this rank: MPI_Abort, so mpirun ends every other rank at
/// once instead of leaving them waiting in a collective. Does not return.
[[noreturn]] void abort_comm(int code);

}  // namespace fluidc::coll
