// runtime/coll/comm.h - the process's one MPI communicator: set up once by run_coll_main, used by the collective ops.
#pragma once

#include <cstdint>

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
/// MPI_Finalize after a clean run.
void finalize_comm();
/// After an error on this rank: MPI_Abort, so mpirun ends every other rank at
/// once instead of leaving them waiting in a collective. Does not return.
[[noreturn]] void abort_comm(int code);

}  // namespace fluidc::coll
