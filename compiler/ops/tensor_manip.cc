// compiler/ops/tensor_manip.cc - reshape2, slice, concat and their grads: data movement ops.
#include <fmt/format.h>

#include <algorithm>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/shape_infer.h"
#include "kernels/tensor_manip.h"

namespace fluidc::ops {
namespace {

void infer_reshape2(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  if (!x.known) return;
  TensorType out = x;
  out.dims = attr_ints(c.op(), "shape");
  int64_t known = 1;
  int infer = -1;
  for (size_t i = 0; i < out.dims.size(); ++i) {
    if (out.dims[i] == 0 && i < x.dims.size()) out.dims[i] = x.dims[i];
    if (out.dims[i] == -1) infer = static_cast<int>(i);
    else if (out.dims[i] >= 0) known *= out.dims[i];
  }
  int64_t total = 1;
  for (int64_t d : x.dims) total = (total < 0 || d < 0) ? -1 : total * d;
  if (infer >= 0 && total >= 0 && known > 0) out.dims[infer] = total / known;
  c.set_output("Out", out);
  TensorType xshape = x;
  xshape.dims.insert(xshape.dims.begin(), 0);  // Paddle's shape-only record of X
  c.set_output("XShape", xshape);
}

void infer_reshape2_grad(ShapeCtx& c) {
  TensorType x = c.input("XShape");
  if (!x.known || x.dims.empty()) return;
  x.dims.erase(x.dims.begin());
  x.dtype = c.input("Out@GRAD").dtype;
  c.set_output("X@GRAD", x);
}

void infer_slice(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  if (!in.known) return;
  auto axes = attr_ints(c.op(), "axes"), starts = attr_ints(c.op(), "starts"), ends = attr_ints(c.op(), "ends");
  if (axes.size() != starts.size() || axes.size() != ends.size()) {
    c.error(fmt::format("axes, starts and ends differ in length ({}, {}, {})", axes.size(), starts.size(), ends.size()));
    return;
  }
  TensorType out = in;
  const int64_t rank = static_cast<int64_t>(in.dims.size());
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
    if (a < 0 || a >= rank) {
      c.error(fmt::format("axis {} is out of range for Input {}", axes[k], in.str()));
      return;
    }
    int64_t dim = in.dims[a];
    if (dim < 0) {
      out.dims[a] = -1;
      continue;
    }
    auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
    out.dims[a] = std::max<int64_t>(0, clamp(ends[k]) - clamp(starts[k]));
  }
  auto dec = attr_ints(c.op(), "decrease_axis");
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < rank; ++i)
    if (std::find(dec.begin(), dec.end(), i) == dec.end()) kept.push_back(out.dims[i]);
  out.dims = kept;
  c.set_output("Out", out);
}

void infer_concat(ShapeCtx& c) {
  TensorType out = c.input("X", 0);
  if (!out.known) return;
  const int64_t rank = static_cast<int64_t>(out.dims.size());
  int64_t axis = attr_int(c.op(), "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) {
    c.error(fmt::format("axis {} is out of range for X {}", attr_int(c.op(), "axis", 0), out.str()));
    return;
  }
  for (int i = 1; i < c.num_inputs("X"); ++i) {
    const TensorType& xi = c.input("X", i);
    if (!xi.known || xi.dims.size() != out.dims.size()) {
      c.error(fmt::format("X #{} is {} but X #0 is {}", i, xi.str(), c.input("X", 0).str()));
      return;
    }
    out.dims[axis] = (out.dims[axis] < 0 || xi.dims[axis] < 0) ? -1 : out.dims[axis] + xi.dims[axis];
  }
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

void add_tensor_manip_ops(std::vector<OpDef>& t) {
  t.push_back({.type = "reshape2", .family = "tensor_manip", .inputs = {{"X"}},
               .outputs = {{"Out"}, {"XShape", true}}, .attrs = kernel_attrs<kernels::Reshape2Attrs>(),
               .attrs_struct = "Reshape2Attrs", .grad = "reshape2_grad", .infer_shape = infer_reshape2});
  t.push_back({.type = "reshape2_grad", .family = "tensor_manip", .inputs = {{"XShape"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = infer_reshape2_grad});
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
  t.push_back({.type = "concat", .family = "tensor_manip", .inputs = {{"X", false, true}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<kernels::ConcatAttrs>(), .attrs_struct = "ConcatAttrs", .grad = "concat_grad",
               .infer_shape = infer_concat});
  t.push_back({.type = "concat_grad", .family = "tensor_manip", .inputs = {{"X", false, true}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true, true}}, .attrs = kernel_attrs<kernels::ConcatAttrs>(), .attrs_struct = "ConcatAttrs",
               .infer_shape = infer_concat_grad});
}

}  // namespace fluidc::ops
