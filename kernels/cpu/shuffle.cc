// kernels/cpu/shuffle.cc - pixel_shuffle, pixel_unshuffle, channel_shuffle and their gradients as 6-D transposes.
#include <cstring>

#include "kernels/cpu/kernel_util.h"
#include "kernels/shapes/shuffle.h"
#include "kernels/shuffle.h"

namespace fluidc::kernels {

using namespace detail;
using shapes::Permute6;

namespace {

// dst (Out's order) = src (p.in's order) transposed by p.perm; `inverse`
// runs it backwards (src in Out's order, dst in p.in's), for the gradients.
void transpose6(const Permute6& p, const char* src, char* dst, size_t es, bool inverse) {
  int64_t in_stride[6];
  in_stride[5] = 1;
  for (int k = 4; k >= 0; --k) in_stride[k] = in_stride[k + 1] * p.in[k + 1];
  int64_t od[6], os[6];  // Out's dims and, for each, its stride in the p.in layout
  for (int k = 0; k < 6; ++k) od[k] = p.in[p.perm[k]], os[k] = in_stride[p.perm[k]];
  int64_t idx[6] = {};
  int64_t total = 1;
  for (int64_t d : od) total *= d;
  for (int64_t o = 0; o < total; ++o) {
    int64_t i = 0;
    for (int k = 0; k < 6; ++k) i += idx[k] * os[k];
    if (inverse) std::memcpy(dst + i * es, src + o * es, es);
    else std::memcpy(dst + o * es, src + i * es, es);
    for (int k = 5; k >= 0; --k) {
      if (++idx[k] < od[k]) break;
      idx[k] = 0;
    }
  }
}

// Forward: Out from X by the plan. Gradient (`grad`): X@GRAD from
// Out@GRAD by the inverse; `xs` is then X's shape.
void run(const char* op, const char* role, const Tensor& src, const Permute6& p, const Shape& dst_shape, Tensor& dst,
         bool grad) {
  OutBuf ob(&dst, Slot::kOut0, &dst == &src);
  ob.get().resize(dst_shape, src.dtype());
  if (src.numel() != dst_shape.numel())
    rt::fail(fmt::format("{}: {} {} does not fit {}", op, role, src.shape().str(), dst_shape.str()));
  transpose6(p, static_cast<const char*>(src.raw()), static_cast<char*>(ob.get().raw()), rt::dtype_size(src.dtype()),
             grad);
  ob.finish();
}

// pixel_shuffle (`shuffle`) or pixel_unshuffle by `factor`: Out from X by the plan.
void pixel_permute(const char* op, const Tensor& x, int factor, const std::string& format, bool shuffle,
                   Tensor& out) {
  require_init(op, "X", x);
  Permute6 p;
  Shape os;
  require_rule(op, shapes::pixel_shuffle_plan(x.shape(), factor, format, shuffle, p, os));
  run(op, "X", x, p, os, out, false);
}

// Its gradient: X's shape is Out@GRAD's taken the other way, and X@GRAD
// comes back through the inverse of the forward plan for that X.
void pixel_permute_grad(const char* op, const Tensor& out_grad, int factor, const std::string& format, bool shuffle,
                        Tensor* x_grad) {
  if (!x_grad) return;
  require_init(op, "Out@GRAD", out_grad);
  Permute6 unused, p;
  Shape xs, os;
  require_rule(op, shapes::pixel_shuffle_plan(out_grad.shape(), factor, format, !shuffle, unused, xs));
  require_rule(op, shapes::pixel_shuffle_plan(xs, factor, format, shuffle, p, os));
  run(op, "Out@GRAD", out_grad, p, xs, *x_grad, true);
}

}  // namespace

void pixel_shuffle(const Tensor& x, Tensor& out, const PixelShuffleAttrs& a) {
  pixel_permute("pixel_shuffle", x, a.upscale_factor, a.data_format, true, out);
}

void pixel_shuffle_grad(const Tensor& out_grad, Tensor* x_grad, const PixelShuffleAttrs& a) {
  pixel_permute_grad("pixel_shuffle_grad", out_grad, a.upscale_factor, a.data_format, true, x_grad);
}

void pixel_unshuffle(const Tensor& x, Tensor& out, const PixelUnshuffleAttrs& a) {
  pixel_permute("pixel_unshuffle", x, a.downscale_factor, a.data_format, false, out);
}

void pixel_unshuffle_grad(const Tensor& out_grad, Tensor* x_grad, const PixelUnshuffleAttrs& a) {
  pixel_permute_grad("pixel_unshuffle_grad", out_grad, a.downscale_factor, a.data_format, false, x_grad);
}

void channel_shuffle(const Tensor& x, Tensor& out, const ChannelShuffleAttrs& a) {
  require_init("channel_shuffle", "X", x);
  Permute6 p;
  Shape os;
  require_rule("channel_shuffle", shapes::channel_shuffle_plan(x.shape(), a, p, os));
  run("channel_shuffle", "X", x, p, os, out, false);
}

void channel_shuffle_grad(const Tensor& out_grad, Tensor* x_grad, const ChannelShuffleAttrs& a) {
  if (!x_grad) return;
  require_init("channel_shuffle_grad", "Out@GRAD", out_grad);
  Permute6 p;
  Shape xs;
  require_rule("channel_shuffle_grad", shapes::channel_shuffle_plan(out_grad.shape(), a, p, xs));
  run("channel_shuffle_grad", "Out@GRAD", out_grad, p, xs, *x_grad, true);
}

namespace {

ChannelShuffleAttrs as_channel_shuffle(const ShuffleChannelAttrs& a) {
  ChannelShuffleAttrs c;
  c.groups = a.group;
  c.data_format = "NCHW";
  return c;
}

}  // namespace

// Checked here first so that an error names shuffle_channel.
void shuffle_channel(const Tensor& x, Tensor& out, const ShuffleChannelAttrs& a) {
  require_init("shuffle_channel", "X", x);
  Permute6 p;
  Shape os;
  require_rule("shuffle_channel", shapes::channel_shuffle_plan(x.shape(), as_channel_shuffle(a), p, os));
  channel_shuffle(x, out, as_channel_shuffle(a));
}

void shuffle_channel_grad(const Tensor& out_grad, Tensor* x_grad, const ShuffleChannelAttrs& a) {
  if (!x_grad) return;
  require_init("shuffle_channel_grad", "Out@GRAD", out_grad);
  Permute6 p;
  Shape xs;
  require_rule("shuffle_channel_grad", shapes::channel_shuffle_plan(out_grad.shape(), as_channel_shuffle(a), p, xs));
  channel_shuffle_grad(out_grad, x_grad, as_channel_shuffle(a));
}

}  // namespace fluidc::kernels
