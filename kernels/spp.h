// kernels/spp.h - spp (Fluid 1.x spatial pyramid pooling): max or average pooling into 1, 2, 4 ... bins per side, flattened and joined.
#pragma once

#include <string>

#include "kernels/attr_fields.h"
#include "runtime/tensor.h"

namespace fluidc::kernels {

using fluidc::rt::Tensor;

/// Attributes of `spp`.
struct SppAttrs {
  int pyramid_height = 1;            ///< levels; level p has 2^p x 2^p bins
  std::string pooling_type = "max";  ///< "max" or "avg"
  template <class F>
  static void fields(F&& f) {
    f("pyramid_height", &SppAttrs::pyramid_height, kRequiredAttr);
    f("pooling_type", &SppAttrs::pooling_type);
  }
};

/// Out [N, C * (1 + 4 + ... + 4^(pyramid_height - 1))] from X [N, C, H, W]
/// (fp32 or fp64): level p pools X with windows and strides of ceil(H / b)
/// x ceil(W / b), b = 2^p, padded by (window * b - size + 1) / 2 on each side
/// (average: over the elements inside X), and adds its [N, C, b, b] to Out
/// flattened per image. H and W must be at least 2^(pyramid_height - 1)
/// (Paddle's bound). Even then a window may lie wholly in the padding (5
/// rows into 4 bins: 2 rows of padding), where, as in Paddle, max pooling
/// gives the lowest finite value and average pooling 0 / 0.
void spp(const Tensor& x, Tensor& out, const SppAttrs& attrs);
/// X@GRAD: each level's gradient as pool2d's (max: to the first element of
/// a window equal to its maximum), summed over the levels.
void spp_grad(const Tensor& x, const Tensor& out, const Tensor& out_grad, Tensor* x_grad, const SppAttrs& attrs);

}  // namespace fluidc::kernels
