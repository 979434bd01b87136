// compiler/ir/op_role.h - Paddle's op_role marks and gradient names: how a program says what is loss, backward, optimizer.
#pragma once

#include <string>

#include "compiler/ir/program.h"

namespace fluidc {

/// The loss as Paddle's append_backward marks it: the output of the forward
/// op with op_role Forward|Loss; when that op has several outputs, the one
/// whose gradient the Backward|Loss seed writes. "" when nothing is marked.
std::string marked_loss(const pb::BlockDesc& block);

/// Paddle's op_role bits (OpRole in Paddle's op_proto_maker): Forward|Loss
/// (0x0100) marks the forward op that writes the loss, Backward|Loss
/// (0x0101) the op that writes d(loss)/d(loss) = 1.
inline constexpr int kOpRoleForward = 0x0000;
inline constexpr int kOpRoleBackward = 0x0001;
inline constexpr int kOpRoleOptimize = 0x0002;
inline constexpr int kOpRoleLoss = 0x0100;
/// Paddle's RPC (send, recv, barriers) and Dist (split_byref, concat of
/// received blocks) roles, which its distributed transpiler writes.
inline constexpr int kOpRoleRPC = 0x0004;
inline constexpr int kOpRoleDist = 0x0008;
/// Paddle's LRSched: learning-rate schedule ops.
inline constexpr int kOpRoleLRSched = 0x0010;

/// Paddle's gradient-variable suffix: the gradient of `x` is `x@GRAD`, and an
/// op's gradient slots are named `<slot>@GRAD`. The one definition in the tree;
/// names are built with it, never parsed back to recover metadata.
inline const std::string kGradSuffix = "@GRAD";
/// The gradient variable (or gradient slot) of `name`.
inline std::string grad_var_name(const std::string& name) { return name + kGradSuffix; }

}  // namespace fluidc
