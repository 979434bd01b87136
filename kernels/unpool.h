// kernels/unpool.h - unpool (paddle.nn.functional.max_unpool2d; SegNet's decoder): each value back to the position its max pooling took it from.
#pragma once

#include <string>
#include <vector>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `unpool`. ksize, strides and paddings only size the output
/// when output_size is empty or all zeros (programs written before Paddle
/// had the attribute): (in - 1) * stride - 2 * padding + ksize per axis.
struct UnpoolAttrs {
  std::vector<int> ksize;
  std::string unpooling_type = "max";  ///< the only kind Paddle has
  std::vector<int> strides = {1, 1};
  std::vector<int> paddings = {0, 0};
  std::vector<int> output_size = {0, 0};  ///< (height, width) of Out
  std::string data_format = "NCHW";      ///< the only layout Paddle's kernel takes
  template <class F>
  static void fields(F&& f) {
    f("ksize", &UnpoolAttrs::ksize, kRequiredAttr);
    f("unpooling_type", &UnpoolAttrs::unpooling_type);
    f("strides", &UnpoolAttrs::strides);
    f("paddings", &UnpoolAttrs::paddings);
    f("output_size", &UnpoolAttrs::output_size);
    f("data_format", &UnpoolAttrs::data_format);
  }
};

/// Out [N, C, output_size] (fp32 or fp64, X's dtype), zero but for each
/// X[n, c, i], written at offset Indices[n, c, i] (int32 or int64, X's
/// shape, as max_pool2d_with_index's Mask gives) of its channel's plane.
/// Two values sent to one position: the later one (in X's order) stays.
/// An index outside the plane is refused.
void unpool(const Tensor& x, const Tensor& indices, Tensor& out, const UnpoolAttrs& attrs);
/// X@GRAD[n, c, i] = Out@GRAD[n, c, Indices[n, c, i]]. Out is not read.
/// A value another overwrote gets the position's gradient too (Paddle's
/// rule, though the forward does not depend on it).
void unpool_grad(const Tensor& x, const Tensor& indices, const Tensor* out, const Tensor& out_grad, Tensor* x_grad,
                 const UnpoolAttrs& attrs);

}  // namespace fluidc::kernels
