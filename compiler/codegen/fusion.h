// compiler/codegen/fusion.h - chains of elementwise ops: how one block's are found, and how one is written as a loop.
//
// matmul -> elementwise_add(bias) -> relu is three kernels and two full
// passes over the activation in the plain emitter; fused, the add and the
// relu are one pass that never writes the intermediate. A chain is a run of
// consecutive ops with OpDef::pointwise set where each op reads the
// previous op's Out (as X, or as Y when X is the smaller operand: PP-LCNet's
// `scale * x + bias` with scale and bias of shape [1]) and that Out is
// needed by nothing else.
#pragma once

#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/program.h"
#include "compiler/analysis/program_info.h"

namespace fluidc {

/// How a binary op's second operand (the input that is not the chain's
/// value) lines up with the value; the numbers are the plan file's `rows=`.
enum class OperandFit : int {
  kFull = 0,    ///< the value's shape (declared with its rank); also unary ops
  kRow = 1,     ///< a lower rank (Paddle's axis rule), or ones in place of some of the value's dims
  kScalar = 2,  ///< one element (every declared dim 1) broadcast over the value
};

struct FusedChain {
  std::vector<int> ops;  ///< op indices in the block, consecutive, at least two
  std::vector<OperandFit> fits;  ///< per op
  /// Per op: the value enters as Y and the second operand is X (a broadcast
  /// X: out = f(x, value)); false for unary ops and the usual order.
  std::vector<bool> value_is_y;
  pb::VarType::Type dtype = pb::VarType::FP32;  ///< FP32 or FP64, shared by every tensor of the chain
};

/// The chains of every block of `prog`, by block index (blocks without
/// any are absent). The fuse pass (plan_fusion in fusion_plan.h) calls it;
/// codegen reads the plan. An intermediate value (an Out
/// that the next op consumes) qualifies when no other op of any block reads
/// or writes it and it is no feed, fetch, loss or persistable: it is then
/// never materialised. Second operands must be declared with the value's
/// rank (same shape, or one element) or a lower one (a row, Paddle's axis
/// rule); the generated code checks the actual shapes before taking the
/// fused path.
std::map<int, std::vector<FusedChain>> find_fused_chains(const Program& prog, const ProgramInfo& info);

/// What emit_fused_chain needs from the emitter.
struct FusedEmitEnv {
  /// C++ identifier of a variable's tensor as seen from the chain's block.
  std::function<const std::string&(const std::string&)> var;
  /// Identifiers of op i's OpSite and attribute constant ("" when none).
  std::function<std::string(int)> site, attrs;
  /// The chain's ops emitted one by one: the path taken when the run-time
  /// check declines (unexpected broadcast, wrong dtype, missing input).
  std::string fallback;
};

/// Writes the fused loop of `chain` into `body` (statements indented 2).
void emit_fused_chain(const Program& prog, int block, const FusedChain& chain, const FusedEmitEnv& env,
                      std::ostringstream& body);

}  // namespace fluidc
