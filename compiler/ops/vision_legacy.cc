// compiler/ops/vision_legacy.cc - Fluid 1.x vision ops: affine_channel, lrn, norm, temporal_shift, index_sample, gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/vision_legacy.h"

namespace fluidc::ops {
namespace {

using namespace kernels;

// X's shape, or false when it is not known yet.
bool x_shape(ShapeCtx& c, const char* slot, TensorType& x, rt::Shape& xs) {
  x = c.input(slot);
  return x.known && shape_rules::to_shape(c, x, xs);
}

// Out (and the listed outputs) like X once `check(xs)` accepts X.
template <class Check>
void like_x(ShapeCtx& c, const char* in, std::initializer_list<const char*> outs, Check check) {
  TensorType x;
  rt::Shape xs;
  if (!x_shape(c, in, x, xs)) return;
  if (std::string e = check(xs); !e.empty()) return c.error(e);
  for (const char* o : outs)
    if (c.has_output(o)) c.set_output(o, x);
}

void infer_affine_channel(ShapeCtx& c) {
  const auto a = parse_attrs<AffineChannelAttrs>(c.op());
  like_x(c, "X", {"Out"}, [&](const rt::Shape& xs) {
    int axis = 0;
    std::string e = shapes::affine_channel_axis(xs, a, axis);
    if (!e.empty()) return e;
    for (const char* s : {"Scale", "Bias"}) {
      const TensorType& t = c.input(s);
      int64_t n = 1;
      for (int64_t d : t.dims) n = d < 0 || n < 0 ? -1 : n * d;
      if (t.known && n >= 0 && xs.d[axis] >= 0 && n != xs.d[axis])
        return fmt::format("{} {} must hold one value per channel of X {} ({})", s, t.str(), xs.str(), xs.d[axis]);
    }
    return std::string();
  });
}

// The grad op has no Bias input: Bias@GRAD takes Scale's type.
void infer_affine_channel_grad(ShapeCtx& c) {
  shape_rules::grads_like_inputs(c);
  if (c.has_output("Bias@GRAD")) c.set_output("Bias@GRAD", c.input("Scale"));
}

void infer_lrn(ShapeCtx& c) {
  const auto a = parse_attrs<LrnAttrs>(c.op());
  like_x(c, "X", {"Out", "MidOut"}, [&](const rt::Shape& xs) {
    int axis;
    return shapes::lrn_axis(xs, a, axis);
  });
}

void infer_norm(ShapeCtx& c) {
  TensorType x;
  rt::Shape xs, ns;
  if (!x_shape(c, "X", x, xs)) return;
  int axis;
  if (std::string e = shapes::norm_shape(xs, parse_attrs<NormAttrs>(c.op()).axis, axis, ns); !e.empty())
    return c.error(e);
  c.set_output("Out", x);
  TensorType n = x;
  n.dims = shape_rules::from_shape(ns);
  if (c.has_output("Norm")) c.set_output("Norm", n);
}

template <bool kGrad>
void infer_temporal_shift(ShapeCtx& c) {
  const auto a = parse_attrs<TemporalShiftAttrs>(c.op());
  like_x(c, kGrad ? "Out@GRAD" : "X", {kGrad ? "X@GRAD" : "Out"}, [&](const rt::Shape& xs) {
    bool last;
    return shapes::temporal_shift_check(xs, a, last);
  });
}

void infer_index_sample(ShapeCtx& c) {
  TensorType x, index;
  rt::Shape xs, is, os;
  if (!x_shape(c, "X", x, xs) || !x_shape(c, "Index", index, is)) return;
  if (index.dtype != pb::VarType::INT32 && index.dtype != pb::VarType::INT64)
    return c.error(fmt::format("Index {} must be int32 or int64", index.str()));
  if (std::string e = shapes::index_sample_shape(xs, is, os); !e.empty()) return c.error(e);
  x.dims = shape_rules::from_shape(os);
  c.set_output("Out", x);
}

template <class S>
OpDef def(std::string type, const char* attrs_struct, std::vector<SlotDef> in, std::vector<SlotDef> out,
          std::string grad, InferShapeFn infer) {
  return {.type = std::move(type), .family = "vision_legacy", .inputs = std::move(in), .outputs = std::move(out),
          .attrs = kernel_attrs<S>(), .attrs_struct = attrs_struct, .grad = std::move(grad), .infer_shape = infer};
}

}  // namespace

void add_vision_legacy_ops(std::vector<OpDef>& t) {
  // Gradient slots as Paddle 2.6.2's backward writes them.
  t.push_back(def<AffineChannelAttrs>("affine_channel", "AffineChannelAttrs", {{"X"}, {"Scale"}, {"Bias"}},
                                      {{"Out"}}, "affine_channel_grad", infer_affine_channel));
  t.push_back(def<AffineChannelAttrs>("affine_channel_grad", "AffineChannelAttrs", {{"X"}, {"Scale"}, {"Out@GRAD"}},
                                      {{"X@GRAD", true}, {"Scale@GRAD", true}, {"Bias@GRAD", true}}, "",
                                      infer_affine_channel_grad));
  t.push_back(def<LrnAttrs>("lrn", "LrnAttrs", {{"X"}}, {{"Out"}, {"MidOut"}}, "lrn_grad", infer_lrn));
  t.push_back(def<LrnAttrs>("lrn_grad", "LrnAttrs", {{"X"}, {"Out"}, {"MidOut"}, {"Out@GRAD"}}, {{"X@GRAD", true}},
                            "", shape_rules::grads_like_inputs));
  t.push_back(def<NormAttrs>("norm", "NormAttrs", {{"X"}}, {{"Out"}, {"Norm", true}}, "norm_grad", infer_norm));
  t.push_back(def<NormAttrs>("norm_grad", "NormAttrs", {{"X"}, {"Norm"}, {"Out@GRAD"}}, {{"X@GRAD", true}}, "",
                             shape_rules::grads_like_inputs));
  t.push_back(def<TemporalShiftAttrs>("temporal_shift", "TemporalShiftAttrs", {{"X"}}, {{"Out"}},
                                      "temporal_shift_grad", infer_temporal_shift<false>));
  t.push_back(def<TemporalShiftAttrs>("temporal_shift_grad", "TemporalShiftAttrs", {{"Out@GRAD"}},
                                      {{"X@GRAD", true}}, "", infer_temporal_shift<true>));
  t.push_back({.type = "index_sample", .family = "vision_legacy", .inputs = {{"X"}, {"Index"}}, .outputs = {{"Out"}},
               .grad = "index_sample_grad", .infer_shape = infer_index_sample});
  t.push_back({.type = "index_sample_grad", .family = "vision_legacy", .inputs = {{"X"}, {"Index"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
