// compiler/ops/tensor_manip.cc - reshape2, reshape (Fluid 1.x), slice, concat and their grads: data movement ops.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/tensor_manip.h"

namespace fluidc::ops {
namespace {

// reshape2, slice and concat take their Out shapes from the kernels' rules
// (kernels/shapes/tensor_manip.h) over the kernels' parsed attributes.
void infer_reshape2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  const bool run_time = c.has_input("ShapeTensor") || c.has_input("Shape");
  if (std::string e = shapes::reshape2_shape(xs, parse_attrs<kernels::Reshape2Attrs>(c.op()), os);
      !e.empty() && !run_time) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  // A shape given as tensors (ShapeTensor, else Shape) wins over the
  // attribute: its rank is known here, its values only at run time.
  if (c.has_input("ShapeTensor")) {
    out.dims.assign(c.num_inputs("ShapeTensor"), -1);
  } else if (c.has_input("Shape")) {
    const TensorType& st = c.input("Shape");
    if (st.known && st.dims.size() == 1 && st.dims[0] >= 0 && st.dims[0] <= rt::Shape::kMaxRank)
      out.dims.assign(static_cast<size_t>(st.dims[0]), -1);
    else
      out.known = false;  // not even the rank is known: Out keeps its declared type
  }
  c.set_output("Out", out);
  shape_rules::set_xshape(c, x);
}

void infer_slice(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  rt::Shape xs;
  if (!in.known || !shape_rules::to_shape(c, in, xs)) return;
  const auto a = parse_attrs<kernels::SliceAttrs>(c.op());
  // Bounds given as tensors win over the attributes (which Paddle then
  // leaves empty or fills with placeholders) and are known only at run time.
  const bool starts_run_time = c.has_input("StartsTensor") || c.has_input("StartsTensorList");
  const bool ends_run_time = c.has_input("EndsTensor") || c.has_input("EndsTensorList");
  for (const char* list : {"StartsTensorList", "EndsTensorList"})
    if (c.has_input(list) && c.num_inputs(list) != static_cast<int>(a.axes.size())) {
      c.error(fmt::format("{} has {} tensors for {} axes", list, c.num_inputs(list), a.axes.size()));
      return;
    }
  const std::vector<int64_t> starts(a.starts.begin(), a.starts.end()), ends(a.ends.begin(), a.ends.end());
  shapes::SliceWindow w;
  rt::Shape os;
  using Bounds = std::optional<std::span<const int64_t>>;
  std::string e = shapes::slice_window(xs, a, starts_run_time ? Bounds{} : Bounds{starts},
                                       ends_run_time ? Bounds{} : Bounds{ends}, w);
  if (e.empty()) e = shapes::slice_out_shape(w.size, a.decrease_axis, os);
  if (!e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = in;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

void infer_concat(ShapeCtx& c) {
  if (c.has_input("AxisTensor")) return;  // the axis is a run-time value: Out keeps its declared type
  std::vector<rt::Shape> xs;
  if (!shape_rules::input_shapes(c, "X", xs)) return;
  const int n = static_cast<int>(xs.size());
  rt::Shape os;
  int axis = 0;
  const auto a = parse_attrs<kernels::ConcatAttrs>(c.op());
  if (std::string e = shapes::concat_shape(n, [&](int i) -> const rt::Shape& { return xs[i]; }, a, os, axis);
      !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = c.input("X", 0);
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

// Each X@GRAD is shaped like its X; entries left empty keep their place.
void infer_concat_grad(ShapeCtx& c) {
  const auto& op = c.op();
  std::vector<std::string> xs, gs;
  for (const auto& v : op.inputs())
    if (v.parameter() == "X") xs.assign(v.arguments().begin(), v.arguments().end());
  for (const auto& v : op.outputs())
    if (v.parameter() == "X@GRAD") gs.assign(v.arguments().begin(), v.arguments().end());
  if (gs.size() != xs.size()) c.error(fmt::format("{} X but {} X@GRAD entries", xs.size(), gs.size()));
}

}  // namespace

// compiler/ops/tensor_manip_more.cc: split, stack, unstack, expand, tile, shape, size, ...
void add_tensor_manip_more_ops(std::vector<OpDef>& t);
// compiler/ops/tensor_manip_misc.cc: roll, unbind, meshgrid.
void add_tensor_manip_misc_ops(std::vector<OpDef>& t);

void add_tensor_manip_ops(std::vector<OpDef>& t) {
  // Shape / ShapeTensor: the target shape computed at run time (kernels/tensor_manip.h).
  t.push_back({.type = "reshape2", .family = "tensor_manip",
               .inputs = {{"X"}, {"Shape", true}, {"ShapeTensor", true, true}},
               .outputs = {{"Out"}, {"XShape", true}}, .attrs = kernel_attrs<kernels::Reshape2Attrs>(),
               .attrs_struct = "Reshape2Attrs", .grad = "reshape2_grad", .infer_shape = infer_reshape2});
  t.push_back({.type = "reshape2_grad", .family = "tensor_manip", .inputs = {{"XShape"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grad_from_xshape});
  // Fluid 1.x's reshape: no XShape; its gradient reads X (Paddle's default grad maker also passes
  // Shape, ShapeTensor and Out on, unused).
  const std::vector<SlotDef> reshape_in = {{"X"}, {"Shape", true}, {"ShapeTensor", true, true}};
  std::vector<SlotDef> reshape_grad_in = reshape_in;
  reshape_grad_in.push_back({"Out", true});
  reshape_grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "reshape", .family = "tensor_manip", .inputs = reshape_in, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::Reshape2Attrs>(), .attrs_struct = "Reshape2Attrs", .grad = "reshape_grad",
               .infer_shape = infer_reshape2});
  t.push_back({.type = "reshape_grad", .family = "tensor_manip", .inputs = reshape_grad_in,
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
  const std::vector<AttrDef> slice_attrs = kernel_attrs<kernels::SliceAttrs>();
  const std::vector<SlotDef> bounds = {{"StartsTensor", true}, {"EndsTensor", true},
                                       {"StartsTensorList", true, true}, {"EndsTensorList", true, true}};
  std::vector<SlotDef> slice_in = {{"Input"}};
  slice_in.insert(slice_in.end(), bounds.begin(), bounds.end());
  std::vector<SlotDef> slice_grad_in = slice_in;
  slice_grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "slice", .family = "tensor_manip", .inputs = slice_in, .outputs = {{"Out"}},
               .attrs = slice_attrs, .attrs_struct = "SliceAttrs", .grad = "slice_grad", .infer_shape = infer_slice});
  t.push_back({.type = "slice_grad", .family = "tensor_manip", .inputs = slice_grad_in,
               .outputs = {{"Input@GRAD", true}}, .attrs = slice_attrs, .attrs_struct = "SliceAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
  // AxisTensor: the run-time axis that split's gradient (a concat) passes on.
  t.push_back({.type = "concat", .family = "tensor_manip", .inputs = {{"X", false, true}, {"AxisTensor", true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::ConcatAttrs>(), .attrs_struct = "ConcatAttrs", .grad = "concat_grad",
               .infer_shape = infer_concat});
  t.push_back({.type = "concat_grad", .family = "tensor_manip", .inputs = {{"X", false, true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true, true}}, .attrs = kernel_attrs<kernels::ConcatAttrs>(),
               .attrs_struct = "ConcatAttrs",
               .infer_shape = infer_concat_grad});
  add_tensor_manip_more_ops(t);
  add_tensor_manip_misc_ops(t);
}

}  // namespace fluidc::ops
