// compiler/ops/conv.cc - the convolutions (2-D, depthwise, 3-D, transposed, Winograd), unfold/fold and their grads.
#include <fmt/format.h>

#include "compiler/ir/attrs.h"
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/conv.h"

namespace fluidc::ops {
namespace {

// A fused activation must be one the op table marks as fusable (the CPU
// kernels apply exactly those: kernels/cpu/conv_epilogue.h).
void check_fuse_activation(ShapeCtx& c, const std::string& act) {
  if (act.empty()) return;
  const OpDef* def = find_op(act);
  if (!def || !def->conv_epilogue)
    c.error(fmt::format("fuse_activation '{}' is not an activation a convolution can apply", printable(act)));
}

// Output from the kernels' rule (kernels/shapes/conv.h) over the parsed attributes.
template <class Attrs, int Nsp,
          std::string (*Rule)(const rt::Shape&, const rt::Shape&, const Attrs&, int, shapes::ConvGeometry&)>
void infer_conv(ShapeCtx& c) {
  if constexpr (requires(Attrs a) { a.fuse_activation; })
    check_fuse_activation(c, parse_attrs<Attrs>(c.op()).fuse_activation);
  const TensorType& x = c.input("Input");
  const TensorType& w = c.input("Filter");
  rt::Shape xs, ws;
  if (!x.known || !w.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, w, ws)) return;
  shapes::ConvGeometry g;
  if (std::string e = Rule(xs, ws, parse_attrs<Attrs>(c.op()), Nsp, g); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(g.out_shape);
  c.set_output("Output", out);
}

// Output channel c of a convolution is linear in Filter[c] (Filter is
// [Cout, Cin/groups, k...]); the kernel adds Bias per output channel, then
// the fused activation (kernels/conv.h). Programs that bind ResidualData are
// left as they are.
bool conv_channel_linear(const pb::OpDesc& op, ChannelLinear& cl) {
  if (!op_inputs(op, "ResidualData").empty()) return false;
  const auto a = parse_attrs<kernels::ConvAttrs>(op);
  bool last = false;
  if (!shapes::conv_detail::channel_last(a.data_format, last).empty()) return false;
  cl = {.weight = "Filter", .weight_axis = 0, .out = "Output", .out_axis = last ? -1 : 1, .bias = "Bias",
        .epilogue = {.activation = "fuse_activation", .alpha = "fuse_alpha", .beta = "fuse_beta"}};
  return true;
}

// Transposed convolutions: Filter is [C, M/groups, k...], so with one group
// output channel m is linear in Filter[:, m] (axis 1). With several groups
// channel m's weights are a slice of one group's rows, not a whole axis.
bool conv_transpose_channel_linear(const pb::OpDesc& op, ChannelLinear& cl) {
  const auto a = parse_attrs<kernels::ConvTransposeAttrs>(op);
  bool last = false;
  if (a.groups != 1 || !shapes::conv_detail::channel_last(a.data_format, last).empty()) return false;
  cl = {.weight = "Filter", .weight_axis = 1, .out = "Output", .out_axis = last ? -1 : 1, .bias = "Bias",
        .epilogue = {.activation = "fuse_activation", .alpha = "fuse_alpha", .beta = "fuse_beta"}};
  return true;
}

// conv2d's Winograd form: a 3x3, stride-1, undilated, ungrouped NCHW window
// (kernels/shapes/conv.h, winograd_applies) and no ResidualData.
bool conv_winograd(const pb::OpDesc& op, const std::vector<int64_t>& filter, WinogradForm& wf) {
  if (!op_inputs(op, "ResidualData").empty() || filter.size() != 4) return false;
  rt::Shape x, w;
  x.rank = w.rank = 4;
  x[0] = x[2] = x[3] = shapes::kUnknown;
  x[1] = filter[1];
  for (int i = 0; i < 4; ++i) w[i] = filter[static_cast<size_t>(i)];
  shapes::ConvGeometry g;
  if (!shapes::conv_shape(x, w, parse_attrs<kernels::ConvAttrs>(op), 2, g).empty() || !shapes::winograd_applies(g))
    return false;
  wf = {.op = "conv2d_winograd", .filter_transform = "winograd_filter", .filter = "Filter",
        .out_channels = filter[0], .in_channels = filter[1]};
  return true;
}

void infer_conv_winograd(ShapeCtx& c) {
  const auto a = parse_attrs<kernels::ConvAttrs>(c.op());
  check_fuse_activation(c, a.fuse_activation);
  const TensorType& x = c.input("Input");
  const TensorType& u = c.input("Filter");
  rt::Shape xs, us;
  if (!x.known || !u.known || !shape_rules::to_shape(c, x, xs) || !shape_rules::to_shape(c, u, us)) return;
  shapes::ConvGeometry g;
  if (std::string e = shapes::winograd_conv_shape(xs, us, a, g); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(g.out_shape);
  c.set_output("Output", out);
}

// Out [16, M, C] from Filter [M, C, 3, 3].
void infer_winograd_filter(ShapeCtx& c) {
  const TensorType& w = c.input("Filter");
  if (!w.known) return;
  if (w.dims.size() != 4 || w.dims[2] != 3 || w.dims[3] != 3) {
    c.error(fmt::format("Filter must be [M, C, 3, 3], got {}", w.str()));
    return;
  }
  TensorType out = w;
  out.dims = {16, w.dims[0], w.dims[1]};
  c.set_output("Out", out);
}

// unfold / fold: the shared rule of kernels/shapes/conv.h over the parsed attributes.
template <std::string (*Rule)(const rt::Shape&, const kernels::UnfoldAttrs&, shapes::UnfoldGeometry&, rt::Shape&)>
void infer_unfold(ShapeCtx& c) {
  const TensorType& x = c.input("X");
  rt::Shape xs, ys;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  shapes::UnfoldGeometry g;
  if (std::string e = Rule(xs, parse_attrs<kernels::UnfoldAttrs>(c.op()), g, ys); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(ys);
  c.set_output("Y", out);
}

}  // namespace

void add_conv_ops(std::vector<OpDef>& t) {
  using kernels::ConvAttrs, kernels::ConvTransposeAttrs;
  // Bias and ResidualData: optional slots of MKL-DNN era programs (see kernels/conv.h).
  struct Conv {
    const char* type;
    InferShapeFn infer;
  };
  for (const Conv& v : {Conv{"conv2d", infer_conv<ConvAttrs, 2, shapes::conv_shape>},
                        Conv{"depthwise_conv2d", infer_conv<ConvAttrs, 2, shapes::conv_shape>},
                        Conv{"conv3d", infer_conv<ConvAttrs, 3, shapes::conv_shape>}}) {
    std::string fwd = v.type;
    t.push_back({.type = fwd, .family = "conv",
                 .inputs = {{"Input"}, {"Filter"}, {"Bias", true}, {"ResidualData", true}},
                 .outputs = {{"Output"}}, .attrs = kernel_attrs<ConvAttrs>(), .attrs_struct = "ConvAttrs",
                 .grad = fwd + "_grad", .infer_shape = v.infer, .channel_linear = conv_channel_linear,
                 .winograd = fwd == "conv2d" ? conv_winograd : nullptr});
    t.push_back({.type = fwd + "_grad", .family = "conv", .inputs = {{"Input"}, {"Filter"}, {"Output@GRAD"}},
                 .outputs = {{"Input@GRAD", true}, {"Filter@GRAD", true}}, .attrs = kernel_attrs<ConvAttrs>(),
                 .attrs_struct = "ConvAttrs", .infer_shape = shape_rules::grads_like_inputs});
  }
  // fluidc's own: conv2d by Winograd's algorithm from a filter transformed at
  // load time (the winograd pass writes both; kernels/conv.h). Inference only.
  t.push_back({.type = "conv2d_winograd", .family = "conv", .inputs = {{"Input"}, {"Filter"}, {"Bias", true}},
               .outputs = {{"Output"}}, .attrs = kernel_attrs<ConvAttrs>(), .attrs_struct = "ConvAttrs",
               .infer_shape = infer_conv_winograd});
  t.push_back({.type = "winograd_filter", .family = "conv", .inputs = {{"Filter"}}, .outputs = {{"Out"}},
               .infer_shape = infer_winograd_filter});
  // im2col and col2im as ops (F.unfold, F.fold), each the other's gradient.
  struct Im2col {
    const char* type;
    InferShapeFn infer;
  };
  for (const auto& [type, infer] : {Im2col{"unfold", infer_unfold<shapes::unfold_shape>},
                                    Im2col{"fold", infer_unfold<shapes::fold_shape>}}) {
    const std::string fwd = type;
    t.push_back({.type = fwd, .family = "conv", .inputs = {{"X"}}, .outputs = {{"Y"}},
                 .attrs = kernel_attrs<kernels::UnfoldAttrs>(), .attrs_struct = "UnfoldAttrs", .grad = fwd + "_grad",
                 .infer_shape = infer});
    t.push_back({.type = fwd + "_grad", .family = "conv", .inputs = {{"X"}, {"Y@GRAD"}},
                 .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<kernels::UnfoldAttrs>(),
                 .attrs_struct = "UnfoldAttrs", .infer_shape = shape_rules::grads_like_inputs});
  }
  // Paddle's transposed convolutions carry Bias into their grad op too.
  for (const Conv& v : {Conv{"conv2d_transpose", infer_conv<ConvTransposeAttrs, 2, shapes::conv_transpose_shape>},
                        Conv{"depthwise_conv2d_transpose",
                             infer_conv<ConvTransposeAttrs, 2, shapes::conv_transpose_shape>},
                        Conv{"conv3d_transpose", infer_conv<ConvTransposeAttrs, 3, shapes::conv_transpose_shape>}}) {
    std::string fwd = v.type;
    t.push_back({.type = fwd, .family = "conv", .inputs = {{"Input"}, {"Filter"}, {"Bias", true}},
                 .outputs = {{"Output"}}, .attrs = kernel_attrs<ConvTransposeAttrs>(),
                 .attrs_struct = "ConvTransposeAttrs", .grad = fwd + "_grad", .infer_shape = v.infer,
                 .channel_linear = conv_transpose_channel_linear});
    t.push_back({.type = fwd + "_grad", .family = "conv",
                 .inputs = {{"Input"}, {"Filter"}, {"Bias", true}, {"Output@GRAD"}},
                 .outputs = {{"Input@GRAD", true}, {"Filter@GRAD", true}},
                 .attrs = kernel_attrs<ConvTransposeAttrs>(), .attrs_struct = "ConvTransposeAttrs",
                 .infer_shape = shape_rules::grads_like_inputs});
  }
}

}  // namespace fluidc::ops
