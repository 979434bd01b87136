// transpilers/distribute.cc - the distribute pass's entry: checks, then parameter-server or collective rewrite.
#include "transpilers/distribute.h"

#include <fmt/format.h>

#include <set>

#include "compiler/ir/attrs.h"
#include "compiler/ir/op_role.h"
#include "compiler/ops/registry.h"
#include "transpilers/distribute_collective.h"
#include "transpilers/distribute_plan.h"
#include "transpilers/distribute_server.h"
#include "transpilers/distribute_trainer.h"

namespace fluidc {
namespace {

// HOST:PORT with a plain host name or IPv4 address and a port in 1..65535.
bool valid_endpoint(const std::string& ep) {
  const auto colon = ep.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == ep.size() || ep.size() - colon > 6) return false;
  for (size_t i = 0; i < colon; ++i) {
    const char c = ep[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_')) return false;
  }
  int port = 0;
  for (size_t i = colon + 1; i < ep.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(ep[i]))) return false;
    port = port * 10 + (ep[i] - '0');
  }
  return port >= 1 && port <= 65535;
}

// Ops of role Optimize other than the updates move to the server of their
// parameter (op_role_var[0]), as Paddle's transpiler moves weight decay.
// Those tied to no optimized parameter (global-norm clipping, which needs
// every gradient at once) and learning-rate schedules cannot: errors, all listed.
void refuse_untied_optimize_ops(const pb::ProgramDesc& main, const dist::Plan& plan, const std::string& origin,
                                Diagnostics& diags) {
  std::set<std::string> params;
  for (const auto& p : plan.params) params.insert(p.param);
  const pb::BlockDesc& b = main.blocks(0);
  for (int i = 0; i < b.ops_size(); ++i) {
    const pb::OpDesc& op = b.ops(i);
    const int role = static_cast<int>(attr_int(op, "op_role", 0));
    if (role & kOpRoleLRSched)
      diags.error(dist::op_loc(main, origin, 0, i),
                  "distribute (parameter-server mode): learning-rate schedules do not move to the servers yet");
    else if (dist::moves_to_server(op) && !params.count(dist::tied_param(op)) &&
             !(ops::find_op(op.type()) && ops::find_op(op.type())->has(ops::kOptimizer)))
      diags.error(dist::op_loc(main, origin, 0, i),
                  "distribute (parameter-server mode): an op of op_role Optimize must name its parameter in "
                  "op_role_var to move to that parameter's server (gradient clipping by global norm cannot)");
  }
}

// Every gradient must be written in block 0 before its optimizer op.
void check_gradients(const pb::ProgramDesc& main, const dist::Plan& plan, const std::string& origin,
                     Diagnostics& diags) {
  const pb::BlockDesc& b = main.blocks(0);
  for (const auto& p : plan.params) {
    const pb::VarDesc* g = find_block_var(b, p.grad);
    if (!g || !is_dense_tensor(*g))
      diags.error(dist::op_loc(main, origin, 0, p.opt_op, p.grad),
                  "distribute: the gradient must be a block-0 dense tensor");
    else if (dist::last_writer(b, p.grad, p.opt_op) < 0)
      diags.error(dist::op_loc(main, origin, 0, p.opt_op, p.grad),
                  "distribute: no op before the optimizer writes this gradient");
  }
}

}  // namespace

std::string check_distribute_options(const DistributeOptions& o) {
  using Mode = DistributeOptions::Mode;
  if (o.mode == Mode::kNone) return "the distribute pass needs --pservers HOST:PORT,... or --collective --nranks N";
  if (o.mode == Mode::kCollective) {
    if (o.nranks < 2) return fmt::format("--nranks must be at least 2 (got {})", o.nranks);
    return "";
  }
  if (o.pservers.empty()) return "--pservers needs at least one HOST:PORT";
  std::set<std::string> seen;
  for (const auto& ep : o.pservers) {
    if (!valid_endpoint(ep)) return fmt::format("--pservers: '{}' is not HOST:PORT", printable(ep));
    if (!seen.insert(ep).second) return fmt::format("--pservers names {} twice", printable(ep));
  }
  if (o.trainers < 1) return fmt::format("--trainers must be at least 1 (got {})", o.trainers);
  if (o.trainer_id < 0 || o.trainer_id >= o.trainers)
    return fmt::format("--trainer-id must be in 0..{} (got {})", o.trainers - 1, o.trainer_id);
  if (o.min_block_size < kMinBlockSizeFloor)
    return fmt::format("--min-block-size must be at least {} elements, as in Paddle (got {})", kMinBlockSizeFloor,
                       o.min_block_size);
  return "";
}

std::vector<ServerProgram> distribute(pb::ProgramDesc& main, pb::ProgramDesc& startup, const DistributeOptions& o,
                                      const std::string& origin, Diagnostics& diags) {
  if (std::string bad = check_distribute_options(o); !bad.empty()) internal_error("distribute: " + bad);
  if (startup.blocks_size() == 0) {
    pb::BlockDesc* b = startup.add_blocks();
    b->set_idx(0);
    b->set_parent_idx(-1);
  }
  if (dist::optimized_params(main, origin, diags).empty() && !diags.has_errors()) {
    Location where;
    where.file = origin;
    diags.error(where, "distribute: the program has no optimizer op, so nothing to distribute (run the autodiff and "
                       "optimizer passes first, or give a Paddle trainer program)");
  }
  if (diags.has_errors()) return {};
  if (o.mode == DistributeOptions::Mode::kCollective) {
    dist::rewrite_collective(main, startup, o, origin, diags);
    return {};
  }
  const dist::Plan plan = dist::plan_pserver(main, origin, o, diags);
  refuse_untied_optimize_ops(main, plan, origin, diags);
  check_gradients(main, plan, origin, diags);
  if (diags.has_errors()) return {};
  // Servers first: they are cut from the original programs (optimizer ops,
  // the optimizer state's initialisers), which the trainer rewrite removes.
  std::vector<ServerProgram> servers;
  for (int i = 0; i < static_cast<int>(o.pservers.size()); ++i)
    servers.push_back(dist::build_server(main, startup, plan, i, o, origin, diags));
  const std::set<std::string> optimizer_vars = dist::optimizer_only_vars(main.blocks(0), plan);
  dist::ControlVars control;
  dist::rewrite_trainer_main(*main.mutable_blocks(0), plan, o, control);
  dist::rewrite_trainer_startup(*startup.mutable_blocks(0), main.blocks(0), plan, optimizer_vars, o, control);
  return servers;
}

}  // namespace fluidc
