// compiler/ops/index_misc.cc - linspace, cumprod, kthvalue and scatter_nd_add, with their grads.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/index.h"
#include "runtime/tensor.h"

namespace fluidc::ops {
namespace {

// Out is 1-D of Num values (a run-time tensor) in the `dtype` attribute's type.
void infer_linspace(ShapeCtx& c) {
  const int code = parse_attrs<kernels::LinspaceAttrs>(c.op()).dtype;
  if (!rt::dtype_is_valid(code)) {
    c.error(fmt::format("dtype {} is not a dtype code", code));
    return;
  }
  TensorType t;
  t.known = true;
  t.dtype = static_cast<pb::VarType::Type>(code);
  t.dims = {-1};
  c.set_output("Out", t);
}

// Out is X; `dim` must name one of X's dims.
void infer_cumprod(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  const int rank = static_cast<int>(x.dims.size());
  const int dim = parse_attrs<kernels::CumprodAttrs>(c.op()).dim;
  if (rank > 0 && (dim < -rank || dim >= rank)) {
    c.error(fmt::format("dim {} is out of range for X {}", dim, x.str()));
    return;
  }
  c.set_output("Out", x);
}

}  // namespace

void add_index_misc_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "linspace", .family = "index", .inputs = {{"Start"}, {"Stop"}, {"Num"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::LinspaceAttrs>(), .attrs_struct = "LinspaceAttrs",
               .infer_shape = infer_linspace});
  const auto cumprod_attrs = kernel_attrs<kernels::CumprodAttrs>();
  t.push_back({.type = "cumprod", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}}, .attrs = cumprod_attrs,
               .attrs_struct = "CumprodAttrs", .grad = "cumprod_grad", .infer_shape = infer_cumprod});
  t.push_back({.type = "cumprod_grad", .family = "index", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = cumprod_attrs, .attrs_struct = "CumprodAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
