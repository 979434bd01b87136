// compiler/ops/shape_ctx.h - dtype and shape inference over a program, with -1 for run-time dims.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/support/diagnostics.h"
#include "compiler/ir/program.h"
#include "compiler/ops/op_def.h"
#include "runtime/tensor.h"

namespace fluidc {

/// A tensor's type at compile time. A dim of -1 is known only at run time
/// (typically the batch); it is resolved from the feeds when the binary runs.
struct TensorType {
  pb::VarType::Type dtype = pb::VarType::FP32;
  std::vector<int64_t> dims;
  bool known = false;  ///< false: nothing is known (not a tensor, or never set)

  std::string str() const;  ///< "float32[-1, 13]"
};

/// How set_output merges an inferred type into what a variable had.
/// Paddle treats declared VarDesc dims as hints (its executor recomputes
/// shapes at run time), so by default the inferred type wins and a conflict
/// is a warning.
struct ShapePolicy {
  bool strict = false;   ///< a conflict with a declared or earlier dim is an error (`--strict-shapes`)
  bool replace = false;  ///< re-inferring a loop body after its loop variables widened: block-local types are replaced
  /// Set when a sub-block's write widened a variable of an enclosing block
  /// (some dim became -1 because the two shapes differ).
  bool* widened = nullptr;
};

/// What an op's infer_shape hook sees: its inputs' types, its attributes,
/// and a way to set its outputs' types or report an error at the op.
class ShapeCtx {
 public:
  ShapeCtx(const Program& prog, int block, int op_index, std::map<std::string, TensorType>& types,
           Diagnostics& diags, const ShapePolicy& policy = {});

  const pb::OpDesc& op() const { return op_; }
  bool has_input(const std::string& slot) const;
  int num_inputs(const std::string& slot) const;
  /// Type of the i-th variable of `slot`; reports an error (and returns an
  /// unknown type) when absent.
  const TensorType& input(const std::string& slot, int i = 0);
  bool has_output(const std::string& slot) const;
  /// Merges `t` into every variable of `slot`: known inferred dims win over
  /// declared ones (a conflict is a located warning, an error under
  /// ShapePolicy::strict); a write from a sub-block to an enclosing block's
  /// variable of another shape makes the differing dims -1, since the
  /// variable holds either shape at run time (a loop variable).
  void set_output(const std::string& slot, const TensorType& t);
  /// set_output for the i-th variable of a duplicable slot only (split's outputs differ).
  void set_output_at(const std::string& slot, int i, const TensorType& t);
  void error(const std::string& message);

 private:
  void merge_output(const std::string& slot, const std::string& name, const TensorType& t);
  const Program& prog_;
  int block_;
  int op_index_;
  const pb::OpDesc& op_;
  std::map<std::string, TensorType>& types_;
  Diagnostics& diags_;
  ShapePolicy policy_;
  TensorType unknown_;
};

/// The declared type of a variable (its VarDesc), unknown for non-tensors.
TensorType declared_type(const pb::VarDesc& var);

namespace shape_rules {
// Reusable infer_shape hooks shared by several op families.

/// Every output slot gets the type of input slot X.
void same_as_x(ShapeCtx& c);
/// Each output "<S>@GRAD" gets the type of input "<S>"; when that input is
/// absent, the type of input "Out" (activation grads read Out, not X).
void grads_like_inputs(ShapeCtx& c);
/// Each output "<S>Out" gets the type of input "<S>" (optimizers).
void outs_like_inputs(ShapeCtx& c);
/// Broadcast two shapes the way Paddle's elementwise ops do with `axis`
/// (the kernels' rule, kernels/shapes/broadcast.h). Returns the reason they
/// do not broadcast, or "" (and sets `out`).
std::string broadcast(const std::vector<int64_t>& x, const std::vector<int64_t>& y, int axis,
                      std::vector<int64_t>& out);
/// Two dims agree when either is unknown (-1) or they are equal.
bool dims_agree(int64_t a, int64_t b);
/// A compile-time type's dims as the shared shape rules take them (-1 stays
/// -1); reports an error at the op and returns false above rank 9.
bool to_shape(ShapeCtx& c, const TensorType& t, rt::Shape& s);
std::vector<int64_t> from_shape(const rt::Shape& s);
/// Every argument of a duplicable input slot as shapes (concat's, stack's
/// X); false when one is not known yet (or above rank 9, reported).
bool input_shapes(ShapeCtx& c, const std::string& slot, std::vector<rt::Shape>& shapes);
/// Sets output XShape, when the op has it, to Paddle's shape-only record of
/// `x`: [0, x dims...] (reshape2, transpose2, squeeze2, ...).
void set_xshape(ShapeCtx& c, const TensorType& x);
/// X@GRAD of a reshape-like op: the dims XShape recorded, Out@GRAD's dtype.
void grad_from_xshape(ShapeCtx& c);
}  // namespace shape_rules

}  // namespace fluidc
