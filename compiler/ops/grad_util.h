// compiler/ops/grad_util.h - small builders for gradient OpDescs, shared by the ops' grad makers and autodiff.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/program.h"

namespace fluidc::ops {

/// Appends slot `slot` with `args` to the op's inputs / outputs.
void add_input(pb::OpDesc& op, const std::string& slot, const std::vector<std::string>& args);
void add_output(pb::OpDesc& op, const std::string& slot, const std::vector<std::string>& args);

/// Copies every attribute of `from` except Paddle's bookkeeping ones
/// (op_role, op_role_var, op_callstack, op_namescope, op_device), which the
/// gradient op gets its own values for.
void copy_semantic_attrs(const pb::OpDesc& from, pb::OpDesc& to);

/// Sets (adds or replaces) an attribute.
void set_attr_int(pb::OpDesc& op, const std::string& name, int64_t v);
void set_attr_float(pb::OpDesc& op, const std::string& name, float v);
void set_attr_bool(pb::OpDesc& op, const std::string& name, bool v);
void set_attr_string(pb::OpDesc& op, const std::string& name, const std::string& v);
void set_attr_strings(pb::OpDesc& op, const std::string& name, const std::vector<std::string>& v);
void set_attr_longs(pb::OpDesc& op, const std::string& name, const std::vector<int64_t>& v);

/// The single-input, single-output gradient shared by scale, assign and
/// cast: an op of the forward type from Out@GRAD to X@GRAD with the
/// forward's attributes. Returns false when X needs no gradient.
bool unary_self_grad(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                     pb::OpDesc& grad);

/// The gradient of an op that cuts X into its Out list along `axis` (split,
/// unbind): `join` ("concat", "stack") of every Out's gradient into X's,
/// through output slot `out_slot`. Autodiff hands zeros for an Out the loss
/// does not reach, as Paddle's backward does. False when X needs no gradient.
bool join_output_grads(const pb::OpDesc& fwd, const std::function<std::string(const std::string&)>& grad_of,
                       const std::string& join, const std::string& out_slot, int64_t axis, pb::OpDesc& grad);

}  // namespace fluidc::ops
