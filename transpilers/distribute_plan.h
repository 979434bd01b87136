// transpilers/distribute_plan.h - which parameters the distribute pass slices, into which row blocks, on which server.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "compiler/support/diagnostics.h"
#include "transpilers/distribute.h"

namespace fluidc::dist {

/// One row block of a parameter (the whole parameter when it is not sliced).
struct Slice {
  std::string param;         ///< `P`, or `P.blockN` when sliced
  std::string grad;          ///< its gradient in the trainer: `G`, `G.trainer_I`, `G.blockN`, `G.blockN.trainer_I`
  std::string server_grad;   ///< the averaged gradient on the server: `G` or `G.blockN`
  std::vector<int64_t> dims; ///< the parameter's dims with dim 0 = this block's rows
  int server = 0;            ///< index into DistributeOptions::pservers
};

/// A parameter updated by one optimizer op of block 0.
struct ParamPlan {
  std::string param, grad;  ///< original names
  int opt_op = -1;          ///< index of its optimizer op in block 0
  pb::VarType::Type dtype = pb::VarType::FP32;
  std::vector<int64_t> dims;
  std::vector<Slice> slices;
  bool sliced() const { return slices.size() > 1; }
};

struct Plan {
  std::vector<ParamPlan> params;  ///< in optimizer-op order (Paddle's params_grads order)
};

/// Paddle's slice_variable: the element counts of the blocks a variable of
/// `dims` is cut into for `servers` servers: at most one per server, none
/// under `min_block_size` elements (unless the variable is smaller), each a
/// whole number of rows.
std::vector<int64_t> block_sizes(const std::vector<int64_t>& dims, int servers, int64_t min_block_size);

/// The (parameter, gradient) pairs of block 0's optimizer ops, in op order.
/// Reports optimizer ops whose parameter is not a dense tensor of known dims.
std::vector<ParamPlan> optimized_params(const pb::ProgramDesc& main, const std::string& origin, Diagnostics& diags);

/// The parameter-server plan: slices and their servers, round robin over all
/// blocks of all parameters in order (Paddle's RoundRobin dispatcher).
Plan plan_pserver(const pb::ProgramDesc& main, const std::string& origin, const DistributeOptions& o,
                  Diagnostics& diags);

/// Ops that leave the trainer for the servers: the optimizer updates and
/// the other ops of op_role Optimize (weight decay), each tied to its
/// parameter by op_role_var, as Paddle's transpiler moves them.
bool moves_to_server(const pb::OpDesc& op);
/// The parameter an op of op_role Optimize belongs to (op_role_var[0]), or "".
std::string tied_param(const pb::OpDesc& op);

/// A location in `origin` for diagnostics of the pass (block 0, op `op`).
Location op_loc(const pb::ProgramDesc& prog, const std::string& origin, int block, int op, const std::string& var = "");

// ---- small OpDesc / VarDesc builders the distribute files share ----
void set_attr_ints(pb::OpDesc& op, const std::string& name, const std::vector<int64_t>& v);
void set_attr_blocks(pb::OpDesc& op, const std::string& name, const std::vector<int>& blocks);
/// A new op of `type` with op_role `role`.
pb::OpDesc new_op(const std::string& type, int role);
/// Declares `name` in `block` (once) like `like` but with `dims` and `persistable`.
void declare_like(pb::BlockDesc& block, const std::string& name, const pb::VarDesc& like,
                  const std::vector<int64_t>& dims, bool persistable);
/// Paddle's control variables (`__control_var@...`): dependency-only outputs
/// of send and the barriers. Named `__control_var@N`, N counting up past
/// the names the block already uses, so the output is deterministic.
class ControlVars {
 public:
  /// Declares a new control variable in `block` and returns its name.
  std::string make(pb::BlockDesc& block);

 private:
  int next_ = 0;
};
/// Renames `from` to `to` in every op slot of `block` and in its VarDesc.
void rename_var(pb::BlockDesc& block, const std::string& from, const std::string& to);
/// Index of the last op of `block` before `before` with `name` among its outputs, or -1.
int last_writer(const pb::BlockDesc& block, const std::string& name, int before);

}  // namespace fluidc::dist
