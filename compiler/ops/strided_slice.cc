// compiler/ops/strided_slice.cc - strided_slice and its gradient.
#include <fmt/format.h>

#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/strided_slice.h"

namespace fluidc::ops {
namespace {

using kernels::StridedSliceAttrs;

// Bounds given as tensors win over the attributes and are known only at
// run time: those axes' sizes are unknown here (kernels/shapes/strided_slice.h).
void infer_strided_slice(ShapeCtx& c) {
  const TensorType& in = c.input("Input");
  rt::Shape xs, os;
  if (!in.known || !shape_rules::to_shape(c, in, xs)) return;
  const auto a = parse_attrs<StridedSliceAttrs>(c.op());
  for (const char* list : {"StartsTensorList", "EndsTensorList", "StridesTensorList"})
    if (c.has_input(list) && c.num_inputs(list) != static_cast<int>(a.axes.size())) {
      c.error(fmt::format("{} has {} tensors for {} axes", list, c.num_inputs(list), a.axes.size()));
      return;
    }
  using Bounds = std::optional<std::span<const int64_t>>;
  auto attr_or_run_time = [&](const std::vector<int>& attr, std::vector<int64_t>& buf, const char* t,
                              const char* l) -> Bounds {
    if (c.has_input(t) || c.has_input(l)) return std::nullopt;
    buf.assign(attr.begin(), attr.end());
    return Bounds{buf};
  };
  std::vector<int64_t> sb, eb, tb;
  const Bounds starts = attr_or_run_time(a.starts, sb, "StartsTensor", "StartsTensorList");
  const Bounds ends = attr_or_run_time(a.ends, eb, "EndsTensor", "EndsTensorList");
  const Bounds strides = attr_or_run_time(a.strides, tb, "StridesTensor", "StridesTensorList");
  shapes::StridedWindow w;
  std::string e = shapes::strided_slice_window(xs, a, starts, ends, strides, true, w);
  if (e.empty()) e = shapes::strided_slice_out_shape(w.size, a.decrease_axis, os);
  if (!e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = in;
  out.dims = shape_rules::from_shape(os);
  c.set_output("Out", out);
}

}  // namespace

void add_strided_slice_ops(std::vector<OpDef>& t) {
  const std::vector<AttrDef> attrs = kernel_attrs<StridedSliceAttrs>();
  std::vector<SlotDef> in = {{"Input"},
                             {"StartsTensor", true},
                             {"EndsTensor", true},
                             {"StridesTensor", true},
                             {"StartsTensorList", true, true},
                             {"EndsTensorList", true, true},
                             {"StridesTensorList", true, true}};
  std::vector<SlotDef> grad_in = in;
  grad_in.push_back({"Out@GRAD"});
  t.push_back({.type = "strided_slice", .family = "strided_slice", .inputs = in, .outputs = {{"Out"}},
               .attrs = attrs, .attrs_struct = "StridedSliceAttrs", .grad = "strided_slice_grad",
               .infer_shape = infer_strided_slice});
  t.push_back({.type = "strided_slice_grad", .family = "strided_slice", .inputs = grad_in,
               .outputs = {{"Input@GRAD", true}}, .attrs = attrs, .attrs_struct = "StridedSliceAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
