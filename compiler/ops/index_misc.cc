// compiler/ops/index_misc.cc - linspace, cumprod, kthvalue, mode, scatter_nd_add and index_add, with their grads.
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

// Out and Indices (int64): X without the axis. mode's rule is kthvalue's for k = 1.
void infer_kthvalue_like(ShapeCtx& c, const kernels::KthvalueAttrs& attrs) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  int axis = 0;
  if (std::string e = shapes::kthvalue_shape(xs, attrs, axis, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
  out.dtype = pb::VarType::INT64;
  c.set_output("Indices", out);
}

void infer_kthvalue(ShapeCtx& c) { infer_kthvalue_like(c, parse_attrs<kernels::KthvalueAttrs>(c.op())); }

void infer_mode(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::ModeAttrs>(c.op());
  infer_kthvalue_like(c, kernels::KthvalueAttrs{1, a.axis, a.keepdim});
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
// index_add: Out is X; Index 1-D and AddValue X's shape with the axis as long as Index.
void infer_index_add(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  const TensorType& index = c.input("Index");
  const TensorType& value = c.input("AddValue");
  if (index.known && index.dtype != pb::VarType::INT32 && index.dtype != pb::VarType::INT64) {
    c.error("Index must be int32 or int64");
    return;
  }
  if (x.known && value.known && value.dtype != x.dtype) {
    c.error("AddValue must have X's dtype");
    return;
  }
  rt::Shape xs, is, vs;
  int axis = 0;
  if (x.known && index.known && value.known && shape_rules::to_shape(c, x, xs) && shape_rules::to_shape(c, index, is) &&
      shape_rules::to_shape(c, value, vs))
    if (std::string e = shapes::index_add_shape(xs, is, vs, parse_attrs<kernels::IndexAddAttrs>(c.op()).axis, axis);
        !e.empty()) {
      c.error(e);
      return;
    }
  c.set_output("Out", x);
}

// X@GRAD like Out@GRAD, AddValue@GRAD like AddValue.
void infer_index_add_grad(ShapeCtx& c) {
  if (c.has_output("X@GRAD")) c.set_output("X@GRAD", c.input("Out@GRAD"));
  if (c.has_output("AddValue@GRAD")) c.set_output("AddValue@GRAD", c.input("AddValue"));
}

void infer_scatter_nd_add_grad(ShapeCtx& c) {
  const TensorType& g = c.input("Out@GRAD");
  if (g.known && c.has_output("X@GRAD")) c.set_output("X@GRAD", g);
  const TensorType& u = c.input("Updates");
  if (u.known && c.has_output("Updates@GRAD")) c.set_output("Updates@GRAD", u);
}

// cummax / cummin: out like x, indices int32 or int64 by `dtype`.
void infer_cum_extreme(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::CumExtremeAttrs>(c.op());
  if (a.dtype != 2 && a.dtype != 3) {
    c.error(fmt::format("dtype {} must be 2 (int32) or 3 (int64)", a.dtype));
    return;
  }
  const TensorType& x = c.input("x");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  int axis = 0;
  if (std::string e = shapes::cum_axis(xs, a.axis, axis); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("out", x);
  TensorType idx = x;
  idx.dtype = a.dtype == 2 ? pb::VarType::INT32 : pb::VarType::INT64;
  c.set_output("indices", idx);
}

// logcumsumexp: X's shape, or 1-D of X's size with flatten.
void infer_logcumsumexp(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::CumsumAttrs>(c.op());
  const TensorType& x = c.input("X");
  rt::Shape xs;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  TensorType out = x;
  int axis = 0;
  if (a.flatten) {
    int64_t n = 1;
    for (int64_t d : x.dims) n = (n < 0 || d < 0) ? -1 : n * d;
    out.dims = {n};
  } else if (std::string e = shapes::cum_axis(xs, a.axis, axis); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", out);
}

// searchsorted: Values' shape, int32 or int64 by out_int32.
void infer_searchsorted(ShapeCtx& c) {
  const TensorType& seq = c.input("SortedSequence");
  const TensorType& val = c.input("Values");
  rt::Shape ss, vs;
  if (!seq.known || !val.known || !shape_rules::to_shape(c, seq, ss) || !shape_rules::to_shape(c, val, vs)) return;
  if (std::string e = shapes::searchsorted_check(ss, vs); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = val;
  out.dtype = parse_attrs<kernels::SearchsortedAttrs>(c.op()).out_int32 ? pb::VarType::INT32 : pb::VarType::INT64;
  c.set_output("Out", out);
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
  // paddle.cummax / cummin (lower-case slots, as Paddle's generated ops): the gradient scatters out@GRAD
  // back to the positions indices names.
  const auto ext_attrs = kernel_attrs<kernels::CumExtremeAttrs>();
  for (const std::string name : {"cummax", "cummin"}) {
    t.push_back({.type = name, .family = "index", .inputs = {{"x"}}, .outputs = {{"out"}, {"indices"}},
                 .attrs = ext_attrs, .attrs_struct = "CumExtremeAttrs", .grad = name + "_grad",
                 .infer_shape = infer_cum_extreme});
    t.push_back({.type = name + "_grad", .family = "index", .inputs = {{"x"}, {"indices"}, {"out@GRAD"}},
                 .outputs = {{"x@GRAD", true}}, .attrs = ext_attrs, .attrs_struct = "CumExtremeAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
  // paddle.logcumsumexp: cumsum's attributes (kernels/index.h).
  const auto lcse_attrs = kernel_attrs<kernels::CumsumAttrs>();
  t.push_back({.type = "logcumsumexp", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = lcse_attrs, .attrs_struct = "CumsumAttrs", .grad = "logcumsumexp_grad",
               .infer_shape = infer_logcumsumexp});
  t.push_back({.type = "logcumsumexp_grad", .family = "index", .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = lcse_attrs, .attrs_struct = "CumsumAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  // paddle.searchsorted: no gradient.
  t.push_back({.type = "searchsorted", .family = "index", .inputs = {{"SortedSequence"}, {"Values"}},
               .outputs = {{"Out"}}, .attrs = kernel_attrs<kernels::SearchsortedAttrs>(),
               .attrs_struct = "SearchsortedAttrs", .infer_shape = infer_searchsorted, .share_lod = kShareLodNone});
  const auto kth_attrs = kernel_attrs<kernels::KthvalueAttrs>();
  t.push_back({.type = "kthvalue", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Indices"}},
               .attrs = kth_attrs, .attrs_struct = "KthvalueAttrs", .grad = "kthvalue_grad",
               .infer_shape = infer_kthvalue});
  t.push_back({.type = "kthvalue_grad", .family = "index", .inputs = {{"X"}, {"Indices"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kth_attrs, .attrs_struct = "KthvalueAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  const auto mode_attrs = kernel_attrs<kernels::ModeAttrs>();
  t.push_back({.type = "mode", .family = "index", .inputs = {{"X"}}, .outputs = {{"Out"}, {"Indices"}},
               .attrs = mode_attrs, .attrs_struct = "ModeAttrs", .grad = "mode_grad", .infer_shape = infer_mode});
  t.push_back({.type = "mode_grad", .family = "index", .inputs = {{"X"}, {"Indices"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = mode_attrs, .attrs_struct = "ModeAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "scatter_nd_add", .family = "index", .inputs = {{"X"}, {"Index"}, {"Updates"}},
               .outputs = {{"Out"}}, .grad = "scatter_nd_add_grad", .infer_shape = infer_scatter_nd_add});
  t.push_back({.type = "scatter_nd_add_grad", .family = "index", .inputs = {{"Index"}, {"Updates"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Updates@GRAD", true}}, .infer_shape = infer_scatter_nd_add_grad});
  const auto ia_attrs = kernel_attrs<kernels::IndexAddAttrs>();
  t.push_back({.type = "index_add", .family = "index", .inputs = {{"X"}, {"Index"}, {"AddValue"}},
               .outputs = {{"Out"}}, .attrs = ia_attrs, .attrs_struct = "IndexAddAttrs", .grad = "index_add_grad",
               .infer_shape = infer_index_add});
  t.push_back({.type = "index_add_grad", .family = "index", .inputs = {{"Index"}, {"AddValue"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"AddValue@GRAD", true}}, .attrs = ia_attrs,
               .attrs_struct = "IndexAddAttrs", .infer_shape = infer_index_add_grad});
}

}  // namespace fluidc::ops
