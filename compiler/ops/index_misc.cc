// compiler/ops/index_misc.cc - linspace, cumprod, kthvalue and scatter_nd_add, with their grads.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/index.h"
#include "kernels/shapes/index.h"
#include "kernels/shapes/index_misc.h"
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

void infer_kthvalue(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  int axis = 0;
  if (std::string e = shapes::kthvalue_shape(xs, parse_attrs<kernels::KthvalueAttrs>(c.op()), axis, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
  out.dtype = pb::VarType::INT64;
  c.set_output("Indices", out);
}

// Out is X; Updates must be what Index addresses in X (gather_nd's rule).
void infer_scatter_nd_add(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& index = c.input("Index");
  const TensorType& updates = c.input("Updates");
  rt::Shape xs, is, us, want;
  if (!x.known || !index.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, index, is)) return;
  if (std::string e = shapes::gather_nd_shape(xs, is, want); !e.empty()) {
    c.error(e);
    return;
  }
  if (updates.known && shape_rules::to_shape(c, updates, us)) {
    bool ok = us.rank == want.rank;
    for (int i = 0; ok && i < us.rank; ++i) ok = shape_rules::dims_agree(us.d[i], want.d[i]);
    if (!ok) {
      c.error(fmt::format("Updates is {} but Index {} into X {} addresses {}", updates.str(), index.str(), x.str(),
                          want.str()));
      return;
    }
  }
  c.set_output("Out", x);
}

// X@GRAD is Out@GRAD's type; Updates@GRAD is Updates'.
void infer_scatter_nd_add_grad(ShapeCtx& c) {
  const TensorType& g = c.input("Out@GRAD");
  if (g.known && c.has_output("X@GRAD")) c.set_output("X@GRAD", g);
  const TensorType& u = c.input("Updates");
  if (u.known && c.has_output("Updates@GRAD")) c.set_output("Updates@GRAD", u);
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
  const auto kth_attrs = kernel_attrs<kernels::KthvalueAttrs>();
  t.push_back({.type = "kthvalue", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Indices"}},
               .attrs = kth_attrs, .attrs_struct = "KthvalueAttrs", .grad = "kthvalue_grad",
               .infer_shape = infer_kthvalue});
  t.push_back({.type = "kthvalue_grad", .family = "index", .inputs = {{"X"}, {"Indices"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kth_attrs, .attrs_struct = "KthvalueAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "scatter_nd_add", .family = "index", .inputs = {{"X"}, {"Index"}, {"Updates"}},
               .outputs = {{"Out"}}, .grad = "scatter_nd_add_grad", .infer_shape = infer_scatter_nd_add});
  t.push_back({.type = "scatter_nd_add_grad", .family = "index", .inputs = {{"Index"}, {"Updates"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Updates@GRAD", true}}, .infer_shape = infer_scatter_nd_add_grad});
}

}  // namespace fluidc::ops
