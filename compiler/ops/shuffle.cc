// compiler/ops/shuffle.cc - pixel_shuffle, pixel_unshuffle, channel_shuffle (and Fluid's shuffle_channel), maxout, gradients.
#include "compiler/ops/attr_struct.h"
#include "compiler/ops/registry.h"
#include "compiler/ops/shape_ctx.h"
#include "kernels/shapes/shuffle.h"

namespace fluidc::ops {
namespace {

using kernels::ChannelShuffleAttrs;
using kernels::MaxoutAttrs;
using kernels::PixelShuffleAttrs;
using kernels::PixelUnshuffleAttrs;
using kernels::ShuffleChannelAttrs;

// `Rule(shape, op) -> error` maps the input slot's shape to the output slot's (kernels/shapes/shuffle.h).
template <class Rule>
void infer_with(ShapeCtx& c, const char* in_slot, const char* out_slot, Rule rule) {
  const TensorType& x = c.input(in_slot);
  rt::Shape xs, os;
  if (!x.known || !shape_rules::to_shape(c, x, xs)) return;
  if (std::string e = rule(xs, os); !e.empty()) {
    c.error(e);
    return;
  }
  TensorType out = x;
  out.dims = shape_rules::from_shape(os);
  c.set_output(out_slot, out);
}

// pixel_shuffle (kUp) and pixel_unshuffle; their gradients run the other way (kGrad).
template <bool kUp, bool kGrad>
void infer_pixel(ShapeCtx& c) {
  int r = 1;
  std::string fmt;
  if constexpr (kUp) {
    const auto a = parse_attrs<PixelShuffleAttrs>(c.op());
    r = a.upscale_factor, fmt = a.data_format;
  } else {
    const auto a = parse_attrs<PixelUnshuffleAttrs>(c.op());
    r = a.downscale_factor, fmt = a.data_format;
  }
  infer_with(c, kGrad ? "Out@GRAD" : "X", kGrad ? "X@GRAD" : "Out", [&](const rt::Shape& s, rt::Shape& o) {
    shapes::Permute6 p;
    return shapes::pixel_shuffle_plan(s, r, fmt, kUp != kGrad, p, o);
  });
}

template <bool kGrad>
void infer_channel_shuffle(ShapeCtx& c) {
  const auto a = parse_attrs<ChannelShuffleAttrs>(c.op());
  infer_with(c, kGrad ? "Out@GRAD" : "X", kGrad ? "X@GRAD" : "Out", [&](const rt::Shape& s, rt::Shape& o) {
    shapes::Permute6 p;
    return shapes::channel_shuffle_plan(s, a, p, o);
  });
}

// shuffle_channel: channel_shuffle's rule with groups = group, NCHW.
template <bool kGrad>
void infer_shuffle_channel(ShapeCtx& c) {
  kernels::ChannelShuffleAttrs a;
  a.groups = parse_attrs<ShuffleChannelAttrs>(c.op()).group;
  infer_with(c, kGrad ? "Out@GRAD" : "X", kGrad ? "X@GRAD" : "Out", [&](const rt::Shape& s, rt::Shape& o) {
    shapes::Permute6 p;
    return shapes::channel_shuffle_plan(s, a, p, o);
  });
}

void infer_maxout(ShapeCtx& c) {
  const auto a = parse_attrs<MaxoutAttrs>(c.op());
  infer_with(c, "X", "Out", [&](const rt::Shape& s, rt::Shape& o) {
    shapes::MaxoutGeom g;
    return shapes::maxout_geom(s, a, g, o);
  });
}

}  // namespace

void add_shuffle_ops(std::vector<OpDef>& t) {
  const char* f = "shuffle";
  // The permutations' gradients read only Out@GRAD (Paddle's grad ops have no X).
  t.push_back({.type = "pixel_shuffle", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<PixelShuffleAttrs>(), .attrs_struct = "PixelShuffleAttrs",
               .grad = "pixel_shuffle_grad", .infer_shape = infer_pixel<true, false>});
  t.push_back({.type = "pixel_shuffle_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<PixelShuffleAttrs>(), .attrs_struct = "PixelShuffleAttrs",
               .infer_shape = infer_pixel<true, true>});
  t.push_back({.type = "pixel_unshuffle", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<PixelUnshuffleAttrs>(), .attrs_struct = "PixelUnshuffleAttrs",
               .grad = "pixel_unshuffle_grad", .infer_shape = infer_pixel<false, false>});
  t.push_back({.type = "pixel_unshuffle_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<PixelUnshuffleAttrs>(), .attrs_struct = "PixelUnshuffleAttrs",
               .infer_shape = infer_pixel<false, true>});
  t.push_back({.type = "channel_shuffle", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<ChannelShuffleAttrs>(), .attrs_struct = "ChannelShuffleAttrs",
               .grad = "channel_shuffle_grad", .infer_shape = infer_channel_shuffle<false>});
  t.push_back({.type = "channel_shuffle_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<ChannelShuffleAttrs>(), .attrs_struct = "ChannelShuffleAttrs",
               .infer_shape = infer_channel_shuffle<true>});
  t.push_back({.type = "shuffle_channel", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<ShuffleChannelAttrs>(), .attrs_struct = "ShuffleChannelAttrs",
               .grad = "shuffle_channel_grad", .infer_shape = infer_shuffle_channel<false>});
  t.push_back({.type = "shuffle_channel_grad", .family = f, .inputs = {{"Out@GRAD"}}, .outputs = {{"X@GRAD", true}},
               .attrs = kernel_attrs<ShuffleChannelAttrs>(), .attrs_struct = "ShuffleChannelAttrs",
               .infer_shape = infer_shuffle_channel<true>});
  t.push_back({.type = "maxout", .family = f, .inputs = {{"X"}}, .outputs = {{"Out"}},
               .attrs = kernel_attrs<MaxoutAttrs>(), .attrs_struct = "MaxoutAttrs", .grad = "maxout_grad",
               .infer_shape = infer_maxout});
  t.push_back({.type = "maxout_grad", .family = f, .inputs = {{"X"}, {"Out"}, {"Out@GRAD"}},
               .outputs = {{"X@GRAD", true}}, .attrs = kernel_attrs<MaxoutAttrs>(), .attrs_struct = "MaxoutAttrs",
               .infer_shape = shape_rules::grads_like_inputs});
}

}  // namespace fluidc::ops
