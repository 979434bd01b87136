// compiler/ops/unary_def.h - builds the op-table entries of a pointwise unary op and its `<op>_grad`.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/shape_ctx.h"

namespace fluidc::ops {

/// What Paddle 2.6's grad op of a unary activation reads besides Out@GRAD.
enum class GradFrom { kX, kOut, kXOut };

inline std::vector<SlotDef> unary_grad_inputs(GradFrom from) {
  switch (from) {
    case GradFrom::kX: return {{"X"}, {"Out@GRAD"}};
    case GradFrom::kOut: return {{"Out"}, {"Out@GRAD"}};
    case GradFrom::kXOut: return {{"X"}, {"Out"}, {"Out@GRAD"}};
  }
  return {};
}

/// A pointwise op `type` (scalar function pw::<fn>) and its `type_grad`, both
/// in family "activation". `attrs`/`attrs_struct`: the kernel's attribute
/// struct, or empty. `epilogue`: how a convolution applies it
/// (ConvEpilogueFn), or null.
inline void add_unary(std::vector<OpDef>& t, const std::string& type, const std::string& fn, GradFrom from,
                      std::vector<AttrDef> attrs = {}, const std::string& attrs_struct = "",
                      ConvEpilogueFn epilogue = nullptr) {
  t.push_back({.type = type, .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = attrs,
               .attrs_struct = attrs_struct, .grad = type + "_grad", .infer_shape = shape_rules::same_as_x,
               .pointwise = fn, .conv_epilogue = epilogue, .in_place = kUnaryInPlace});
  t.push_back({.type = type + "_grad", .family = "activation", .inputs = unary_grad_inputs(from),
               .outputs = {{"X@GRAD", true}}, .attrs = attrs, .attrs_struct = attrs_struct,
               .infer_shape = shape_rules::grads_like_inputs, .in_place = kUnaryGradInPlace});
}

template <class S>
void add_unary(std::vector<OpDef>& t, const std::string& type, const std::string& fn, GradFrom from,
               const std::string& attrs_struct, ConvEpilogueFn epilogue = nullptr) {
  add_unary(t, type, fn, from, kernel_attrs<S>(), attrs_struct, epilogue);
}

/// X@GRAD like Out@GRAD, for grad ops that see nothing else.
inline void grad_like_out_grad(ShapeCtx& c) {
  if (c.has_input("Out@GRAD")) c.set_output("X@GRAD", c.input("Out@GRAD"));
}

/// An op flat almost everywhere (floor, ceil, round, trunc). Paddle's
/// programs carry its `type_grad` (zeros from Out@GRAD alone), so that is in
/// the table, but the forward op names no gradient rule: it has the
/// kZeroGradient trait instead, by which fluidc's autodiff passes no
/// gradient through it (the same sum), and a finite-difference check of an
/// all-zero gradient would prove nothing.
inline void add_flat_unary(std::vector<OpDef>& t, const std::string& type, const std::string& fn) {
  t.push_back({.type = type, .family = "activation", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .traits = kZeroGradient, .infer_shape = shape_rules::same_as_x, .pointwise = fn});
  t.push_back({.type = type + "_grad", .family = "activation", .inputs = {{"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = grad_like_out_grad});
}

}  // namespace fluidc::ops
