// kernels/shuffle.h - pixel_shuffle, pixel_unshuffle, channel_shuffle (pure data permutations), maxout, and gradients.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of pixel_shuffle: rank-4 X [N, C*r*r, H, W] becomes
/// [N, C, H*r, W*r], Out[n, c, h*r+i, w*r+j] = X[n, c*r*r + i*r + j, h, w]
/// (channel-last: the same with C last).
struct PixelShuffleAttrs {
  int upscale_factor = 1;
  std::string data_format = "NCHW";  ///< or NHWC

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("upscale_factor", &PixelShuffleAttrs::upscale_factor);
    f("data_format", &PixelShuffleAttrs::data_format);
  }
};

/// Attributes of pixel_unshuffle, pixel_shuffle's inverse: [N, C, H, W]
/// (H, W multiples of r) becomes [N, C*r*r, H/r, W/r].
struct PixelUnshuffleAttrs {
  int downscale_factor = 1;
  std::string data_format = "NCHW";  ///< or NHWC

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("downscale_factor", &PixelUnshuffleAttrs::downscale_factor);
    f("data_format", &PixelUnshuffleAttrs::data_format);
  }
};

/// Attributes of channel_shuffle: the C = groups * k channels of rank-4 X,
/// seen as [groups, k], are transposed to [k, groups]: Out channel
/// i*groups + j is X channel j*k + i.
struct ChannelShuffleAttrs {
  int groups = 1;
  std::string data_format = "NCHW";  ///< or NHWC

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("groups", &ChannelShuffleAttrs::groups, kRequiredAttr);
    f("data_format", &ChannelShuffleAttrs::data_format);
  }
};

/// Attributes of shuffle_channel, Fluid 1.x's channel_shuffle: NCHW only,
/// the group count in `group`.
struct ShuffleChannelAttrs {
  int group = 1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("group", &ShuffleChannelAttrs::group);
  }
};

/// Attributes of maxout: along `axis` (1, or 3 / -1 for channel-last rank-4
/// X) each run of `groups` channels is reduced to its max: Out channel c =
/// max over k < groups of X channel c*groups + k.
struct MaxoutAttrs {
  int groups = 1;
  int axis = 1;

  /// The attributes by Paddle name (see kernels/attr_fields.h).
  template <class F>
  static void fields(F&& f) {
    f("groups", &MaxoutAttrs::groups, kRequiredAttr);
    f("axis", &MaxoutAttrs::axis);
  }
};

/// The permutations move bytes: any dtype. Their gradients are the inverse
/// permutation of Out@GRAD.
void pixel_shuffle(const Tensor& x, Tensor& out, const PixelShuffleAttrs& attrs);
void pixel_shuffle_grad(const Tensor& out_grad, Tensor* x_grad, const PixelShuffleAttrs& attrs);
void pixel_unshuffle(const Tensor& x, Tensor& out, const PixelUnshuffleAttrs& attrs);
void pixel_unshuffle_grad(const Tensor& out_grad, Tensor* x_grad, const PixelUnshuffleAttrs& attrs);
void channel_shuffle(const Tensor& x, Tensor& out, const ChannelShuffleAttrs& attrs);
void channel_shuffle_grad(const Tensor& out_grad, Tensor* x_grad, const ChannelShuffleAttrs& attrs);
/// channel_shuffle with groups = group on NCHW X.
void shuffle_channel(const Tensor& x, Tensor& out, const ShuffleChannelAttrs& attrs);
void shuffle_channel_grad(const Tensor& out_grad, Tensor* x_grad, const ShuffleChannelAttrs& attrs);

/// fp32 and fp64. The gradient goes to the first element of each group
/// equal to Out, as in Paddle.
void maxout(const Tensor& x, Tensor& out, const MaxoutAttrs& attrs);
void maxout_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const MaxoutAttrs& attrs);

}  // namespace fluidc::kernels
