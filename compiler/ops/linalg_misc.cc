// compiler/ops/linalg_misc.cc - diag_v2, eye, trace, kron, cross and mv with their gradients.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/rule_infer.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/linalg_misc.h"

namespace fluidc::ops {
namespace {

// Out = X's dtype, dims from the kernels' rule (kernels/shapes/linalg_misc.h).
void infer_diag_v2(ShapeCtx& c) { infer_out_by_rule<kernels::DiagV2Attrs>(c, shapes::diag_v2_shape); }

void infer_trace(ShapeCtx& c) { infer_out_by_rule<kernels::TraceAttrs>(c, shapes::trace_shape, "Input"); }

void infer_eye(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::EyeAttrs>(c.op());
  rt::Shape os;
  if (std::string e = shapes::eye_shape(a, os); !e.empty()) {
    c.error(e);
    return;
  }
  if (!rt::dtype_is_valid(a.dtype)) {
    c.error(fmt::format("dtype {} is not a tensor dtype", a.dtype));
    return;
  }
  TensorType t;
  t.known = true;
  t.dtype = static_cast<pb::VarType::Type>(a.dtype);
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

// Two inputs of one dtype: X's dtype, dims from `rule`.
bool two_shapes(ShapeCtx& c, rt::Shape& xs, rt::Shape& ys) {
  const TensorType& x = c.input("X");
  const TensorType& y = c.input("Y");
  if (!x.known || !y.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, y, ys)) return false;
  if (x.dtype != y.dtype) {
    c.error(fmt::format("X is {} but Y is {}: they must have one dtype", x.str(), y.str()));
    return false;
  }
  return true;
}

void infer_kron(ShapeCtx& c) {
  rt::Shape xs, ys, xa, ya, os;
  if (!two_shapes(c, xs, ys)) return;
  shapes::kron_shape(xs, ys, xa, ya, os);
  TensorType t = c.input("X");
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

void infer_cross(ShapeCtx& c) {
  rt::Shape xs, ys;
  if (!two_shapes(c, xs, ys)) return;
  int axis = 0;
  if (std::string e = shapes::cross_axis(xs, ys, parse_attrs<kernels::CrossAttrs>(c.op()), axis); !e.empty()) {
    c.error(e);
    return;
  }
  c.set_output("Out", c.input("X"));
}

// mv: Out [M] of X's dtype.
void infer_mv(ShapeCtx& c) {
  const TensorType &x = c.input("X"), &vec = c.input("Vec");
  rt::Shape xs, vs, os;
  if (!x.known || !vec.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, vec, vs)) return;
  if (std::string e = shapes::mv_shape(xs, vs, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType t = x;
  t.dims = shape_rules::from_shape(os);
  c.set_output("Out", t);
}

}  // namespace

void add_linalg_misc_ops(std::vector<OpDef>& t) {
  const auto diag_attrs = kernel_attrs<kernels::DiagV2Attrs>();
  t.push_back({.type = "diag_v2", .family = "linalg_misc", .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = diag_attrs, .attrs_struct = "DiagV2Attrs", .grad = "diag_v2_grad",
               .infer_shape = infer_diag_v2});
  t.push_back({.type = "diag_v2_grad", .family = "linalg_misc", .inputs = {{"X"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = diag_attrs, .attrs_struct = "DiagV2Attrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "eye", .family = "linalg_misc", .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::EyeAttrs>(), .attrs_struct = "EyeAttrs", .infer_shape = infer_eye});
  const auto trace_attrs = kernel_attrs<kernels::TraceAttrs>();
  t.push_back({.type = "trace", .family = "linalg_misc", .inputs = {{"Input"}}, .outputs = {{"Out"}},
               .attrs = trace_attrs, .attrs_struct = "TraceAttrs", .grad = "trace_grad", .infer_shape = infer_trace});
  t.push_back({.type = "trace_grad", .family = "linalg_misc", .inputs = {{"Input"}, {"Out@GRAD"}},
               .outputs = {{"Input@GRAD", true}}, .attrs = trace_attrs, .attrs_struct = "TraceAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "kron", .family = "linalg_misc", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .grad = "kron_grad", .infer_shape = infer_kron});
  t.push_back({.type = "kron_grad", .family = "linalg_misc", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  t.push_back({.type = "mv", .family = "linalg_misc", .inputs = {{"X"}, {"Vec"}}, .outputs = {{"Out"}},
               .grad = "mv_grad", .infer_shape = infer_mv});
  t.push_back({.type = "mv_grad", .family = "linalg_misc", .inputs = {{"X"}, {"Vec"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Vec@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  const auto cross_attrs = kernel_attrs<kernels::CrossAttrs>();
  t.push_back({.type = "cross", .family = "linalg_misc", .inputs = {{"X"}, {"Y"}}, .outputs = {{"Out"}},
               .attrs = cross_attrs, .attrs_struct = "CrossAttrs", .grad = "cross_grad", .infer_shape = infer_cross});
  t.push_back({.type = "cross_grad", .family = "linalg_misc", .inputs = {{"X"}, {"Y"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}, {"Y@GRAD", true}}, .attrs = cross_attrs, .attrs_struct = "CrossAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
