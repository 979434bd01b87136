// transpilers/distribute.h - the distribute pass: one trainer program into trainer + parameter-server programs, or collective all-reduce.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "compiler/support/diagnostics.h"

namespace fluidc {

/// What `fluidc opt --passes=...,distribute` was asked for.
struct DistributeOptions {
  enum class Mode { kNone, kPserver, kCollective };
  Mode mode = Mode::kNone;
  // ---- parameter-server mode (Paddle's DistributeTranspiler) ----
  std::vector<std::string> pservers;  ///< HOST:PORT of each server, in order
  int trainers = 1;
  int trainer_id = 0;
  bool sync = true;                   ///< --sync (default) | --async
  /// Smallest row block a parameter is sliced into, in elements (Paddle's
  /// DistributeTranspilerConfig.min_block_size, which must be >= 8192).
  int64_t min_block_size = 8192;
  // ---- collective mode (Paddle's GradAllReduce) ----
  int nranks = 0;
  int nrings = 2;  ///< GradAllReduce's default: ring ids alternate over this many rings
};

/// Paddle refuses a smaller minimum block size.
inline constexpr int64_t kMinBlockSizeFloor = 8192;

/// One parameter server's programs.
struct ServerProgram {
  std::string endpoint;
  pb::ProgramDesc main;     ///< block 0: listen_and_serv; one optimize block per slice it owns
  pb::ProgramDesc startup;  ///< initialises the slices and the optimizer state it owns
};

/// Rewrites a trainer program (forward, backward and optimizer ops, as
/// Paddle's minimize or fluidc's autodiff+optimizer passes write it) for
/// distributed training, with the structure Paddle 2.6.2's transpilers give:
///
/// Parameter-server mode: every parameter (the Param of an op with the
/// kOptimizer trait) of at least 2 * min_block_size elements is sliced into
/// up to one row block per server (`P.blockN`, whole rows, Paddle's
/// slice_variable), and the blocks of all parameters, in optimizer-op
/// order, go to the servers round robin. In `main` (the trainer), after the
/// op that last writes each gradient: split_byref into its blocks (when
/// sliced) and send; then send_barrier (sync), one recv per parameter,
/// fetch_barrier (sync) and a concat per sliced parameter; the optimizer
/// ops and their state leave the trainer. With more than one trainer in
/// sync mode, gradients are named `G.trainer_I` / `G.blockN.trainer_I`.
/// `startup` keeps the parameters' initialisers, drops the optimizer
/// state's, and then receives the parameters from the servers. Returns one
/// ServerProgram per endpoint: listen_and_serv (endpoint, Fanin,
/// optimize_blocks, grad_to_block_id, distributed_mode) and, per slice, a
/// block with sum over the trainers' gradients and scale 1/N (sync), then
/// the optimizer op on the slice with its state sliced like it.
///
/// Collective mode: the loss gradient is scaled by 1/nranks, each gradient
/// gets c_sync_calc_stream + c_allreduce_sum after the op that writes it,
/// c_sync_comm_stream per ring before the first optimizer op; startup
/// broadcasts every parameter from rank 0 (c_broadcast) and syncs. Returns
/// no server programs.
///
/// Other ops with op_role Optimize (gradient clipping, weight decay,
/// learning-rate schedules) are not moved to servers yet: they are
/// reported as errors, all at once, in pserver mode.
/// `origin` names `main` in diagnostics.
std::vector<ServerProgram> distribute(pb::ProgramDesc& main, pb::ProgramDesc& startup, const DistributeOptions& options,
                                      const std::string& origin, Diagnostics& diags);

/// Checks the options themselves (endpoints HOST:PORT, counts in range);
/// returns "" or what is wrong, for the driver's usage error.
std::string check_distribute_options(const DistributeOptions& options);

}  // namespace fluidc
